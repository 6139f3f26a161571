package report

import "github.com/conformsuite/conform/internal/check"

// Confirmation is the evidence, from the neighbours of a cause's
// smallest case, that the failures follow the cause's rule: the case
// fails, and a neighbour one edit away that does not exercise the rule
// passes (check.Summary.ConfirmCauses, as conform check confirms causes).
type Confirmation struct {
	// Confirmed says a neighbour without the rule passes.
	Confirmed bool `json:"confirmed"`
	// Failing describes the smallest case in one line
	// (neighbour.Describe), and Symptom its symptom in the run.
	Failing string `json:"failing"`
	Symptom string `json:"failing_symptom,omitempty"`
	// Passing describes the neighbour that passes and Edit what changed
	// ("step -1 → 1"); empty when not confirmed.
	Passing string `json:"passing,omitempty"`
	Edit    string `json:"edit,omitempty"`
	// Reproduced says the smallest case failed again when run again;
	// Tried counts the neighbours judged after it.
	Reproduced bool `json:"reproduced"`
	Tried      int  `json:"tried"`
}

// confirmation returns the report's form of check's confirmation of a
// cause, nil for none.
func confirmation(c *check.Confirmation) *Confirmation {
	if c == nil {
		return nil
	}
	return &Confirmation{Confirmed: c.Confirmed, Failing: c.Failing, Symptom: c.Symptom, Passing: c.Passing,
		Edit: c.Edit, Reproduced: c.Reproduced, Tried: c.Tried}
}
