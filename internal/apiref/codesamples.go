package apiref

import "github.com/cardcat/cardcat/samples"

// codeSamples are an operation's samples in curl, Python, TypeScript and Go
// (samples/, run against a real server by clients' TestSamples), which the
// document gives as its x-codeSamples, the extension Scalar (the reference
// at /docs) and Redocly show beside the operation; none for an operation
// without samples (a registry other than the default's).
func codeSamples(operationID string) []samples.Sample {
	return samples.Of(operationID)
}
