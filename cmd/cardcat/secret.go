package main

import (
	"fmt"
	"os"
	"strings"
)

// envSecret reads a secret setting the same way for every secret (database
// URL, Redis URL, S3 keys): the variable NAME, or the content of the file
// that NAME_FILE names (a mounted secret; surrounding space trimmed). Both
// set is a mistake the operator must resolve, not a silent choice. A flag
// given on the command line wins over both (the callers check it first).
func envSecret(getenv func(string) string, name string) (string, error) {
	value, file := getenv(name), getenv(name+"_FILE")
	switch {
	case value != "" && file != "":
		return "", usageError{fmt.Sprintf("both %s and %s_FILE are set; set one", name, name)}
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("%s_FILE: %w", name, err)
		}
		return strings.TrimSpace(string(b)), nil
	default:
		return strings.TrimSpace(value), nil
	}
}
