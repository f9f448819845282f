package httpapi

import "testing"

func TestCompletionValueGolden(t *testing.T) {
	runGolden(t, paidHandler(t), []goldenCase{
		ultra("completion_value_dbs", "/dbs/sets/FB01/completion-value", 200),
		ultra("completion_value_dbs_cardmarket_only_set", "/dbs/sets/-5001/completion-value", 200),
		ultra("completion_value_dbs_disambiguation", "/dbs/sets/FB03_AR/completion-value", 200),
		ultra("completion_value_dbs_not_found", "/dbs/sets/Galactic%20Battle/completion-value", 404),
		ultra("completion_value_mtg", "/mtg/sets/blb/completion-value", 200),
		ultra("completion_value_mtg_unpriced_set", "/mtg/sets/2899/completion-value", 200),
	})
}

// TestCompletionValueParameters: the endpoint takes no parameter; any is ignored.
func TestCompletionValueParameters(t *testing.T) {
	checkParams(t, paidHandler(t), []paramCase{
		{"/dbs/sets/FB01/completion-value?variant=foil&source=x&limit=0", "", `"completion_cost":`},
	})
}
