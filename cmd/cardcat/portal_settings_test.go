package main

import (
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/account"
)

// stripeEnv is a complete Stripe set-up, to which a test adds.
func stripeEnv(more map[string]string) map[string]string {
	env := map[string]string{
		"CARDCAT_STRIPE_SECRET_KEY": "sk_test_x", "CARDCAT_STRIPE_WEBHOOK_SECRET": "whsec_x",
		"CARDCAT_STRIPE_PRICE_PRO": "price_pro", "CARDCAT_STRIPE_PRICE_ULTRA": "price_ultra",
	}
	for k, v := range more {
		env[k] = v
	}
	return env
}

// TestPortalSettings: the operator's contact (an email address or an
// http(s) URL) and Coffee's minimum (EUR, from Stripe's smallest charge to
// the most Coffee takes) reach the portal and its billing; anything else is
// refused at start-up, naming the setting.
func TestPortalSettings(t *testing.T) {
	for _, tt := range []struct {
		env     map[string]string
		args    []string
		contact string
		minimum account.Cents // with Stripe; 0: no Stripe
	}{
		{nil, nil, "", 0},
		{map[string]string{"CARDCAT_CONTACT": "ops@example.com"}, nil, "ops@example.com", 0},
		{nil, []string{"--contact", "https://example.com/support"}, "https://example.com/support", 0},
		{stripeEnv(nil), nil, "", 300},
		{stripeEnv(map[string]string{"CARDCAT_COFFEE_MINIMUM": "4,50"}), nil, "", 450},
		{stripeEnv(map[string]string{"CARDCAT_COFFEE_MINIMUM": "0.50"}), nil, "", 50},
	} {
		env, _ := configEnv(tt.env)
		cfg, err := parseServe(env, tt.args)
		if err != nil {
			t.Errorf("%v %v: %v", tt.env, tt.args, err)
			continue
		}
		var minimum account.Cents
		if cfg.portal.stripe != nil {
			minimum = cfg.portal.stripe.Minimum
		}
		if cfg.portal.contact != tt.contact || minimum != tt.minimum {
			t.Errorf("%v %v: contact %q, Coffee's minimum %d; want %q, %d", tt.env, tt.args, cfg.portal.contact, minimum, tt.contact, tt.minimum)
		}
	}

	for _, tt := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"CARDCAT_CONTACT": "the operator"}, nil, "CARDCAT_CONTACT"},
		{map[string]string{"CARDCAT_CONTACT": "javascript:alert(1)"}, nil, "CARDCAT_CONTACT"},
		{nil, []string{"--contact", "ftp://example.com"}, "--contact"},
		{stripeEnv(map[string]string{"CARDCAT_COFFEE_MINIMUM": "0.49"}), nil, "CARDCAT_COFFEE_MINIMUM"},
		{stripeEnv(map[string]string{"CARDCAT_COFFEE_MINIMUM": "1000.01"}), nil, "CARDCAT_COFFEE_MINIMUM"},
		{stripeEnv(map[string]string{"CARDCAT_COFFEE_MINIMUM": "three"}), nil, "CARDCAT_COFFEE_MINIMUM"},
	} {
		env, _ := configEnv(tt.env)
		_, err := parseServe(env, tt.args)
		if err == nil || !strings.Contains(err.Error(), tt.want) || exitCode(err) != 2 {
			t.Errorf("%v %v: error %v (exit %d), want a usage error naming %s", tt.env, tt.args, err, exitCode(err), tt.want)
		}
	}
}
