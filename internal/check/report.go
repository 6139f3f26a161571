package check

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

// WriteJSON writes the summary as JSON: the counts, the integrity
// problems, the causes of the failures if they were found (see
// FindCauses; each with its rule's statement and source, and its
// confirmation by neighbours if ConfirmCauses ran) and every
// case's result; a failure that belongs to a cause
// names it ("cause": its rule, "" where no rule explains it; "group": the
// cause's Key, its rule or for failures no rule explains "none" and
// their op and symptom) and its own symptom ("symptom": its op and
// CauseSymptom, "getitem/error/invalid_spec").
func (s *Summary) WriteJSON(w io.Writer) error {
	type result struct {
		ID        string  `json:"id"`
		Status    Status  `json:"status"`
		Source    string  `json:"source,omitempty"`
		Detail    string  `json:"detail,omitempty"`
		Case      string  `json:"case,omitempty"`
		Signature string  `json:"signature,omitempty"`
		Cause     *string `json:"cause,omitempty"`
		Group     string  `json:"group,omitempty"`
		Symptom   string  `json:"symptom,omitempty"`
		// Compared says how an expected error was compared: "kind" or
		// "class" (see Result.Level).
		Compared string `json:"compared,omitempty"`
		// Expected says what the expected answer stands for (see
		// casefile.ExpectedFrom), beside its Source as recorded.
		Expected string `json:"expected,omitempty"`
		// Op, Spec and Inputs describe a failed case; Show is the
		// conform show command that reproduces it.
		Op     string                     `json:"op,omitempty"`
		Spec   map[string]json.RawMessage `json:"spec,omitempty"`
		Inputs []Input                    `json:"inputs,omitempty"`
		Show   string                     `json:"show,omitempty"`
	}
	type causeDoc struct {
		Rule string `json:"rule"`
		// Statement and Source are the rule's (engine.RuleTable).
		Statement string `json:"statement,omitempty"`
		Source    string `json:"source,omitempty"`
		Op        string `json:"op"`
		Symptom   string `json:"symptom"`
		// Symptoms are the symptoms of the cause's failures, the
		// commonest first (Symptom is the op and the first).
		Symptoms    []string `json:"symptoms"`
		Cases       int      `json:"cases"`
		First       string   `json:"first"`
		With        int      `json:"with"`
		FailWith    int      `json:"fail_with"`
		Without     int      `json:"without"`
		FailWithout int      `json:"fail_without"`
		// Confirmed and the rest are the cause's confirmation by
		// neighbours (see ConfirmCauses), absent if none was made.
		Confirmed *bool  `json:"confirmed,omitempty"`
		Failing   string `json:"failing,omitempty"`
		// FailingSymptom is the failing case's own symptom, one
		// of Symptoms.
		FailingSymptom string `json:"failing_symptom,omitempty"`
		Passing        string `json:"passing,omitempty"`
		Edit           string `json:"edit,omitempty"`
		Tried          *int   `json:"tried,omitempty"`
	}
	doc := struct {
		Passed    int      `json:"passed"`
		Failed    int      `json:"failed"`
		Skipped   int      `json:"skipped"`
		Integrity []string `json:"integrity"`
		// IntegrityTotal counts the integrity problems; Integrity
		// lists the first of them.
		IntegrityTotal int        `json:"integrity_total"`
		Protocol       []string   `json:"protocol,omitempty"`
		Causes         []causeDoc `json:"causes,omitempty"`
		Results        []result   `json:"results"`
	}{Passed: s.Passed, Failed: s.Failed, Skipped: s.Skipped, Integrity: []string{}, IntegrityTotal: max(s.IntegrityTotal, len(s.Integrity)), Protocol: s.Protocol, Results: []result{}}
	for _, p := range s.Integrity {
		doc.Integrity = append(doc.Integrity, p.String())
	}
	for i, c := range s.Causes {
		sp := c.Spectrum
		rule, _ := engine.RuleByID(c.Rule)
		cd := causeDoc{Rule: string(c.Rule), Statement: rule.Statement, Source: rule.Source,
			Op: c.Op, Symptom: c.Group(), Symptoms: c.Symptoms, Cases: len(c.Cases), First: c.Cases[0],
			With: sp.With, FailWith: sp.FailWith, Without: sp.Without, FailWithout: sp.FailWithout}
		if i < len(s.Confirmations) && s.Confirmations[i] != nil {
			conf := s.Confirmations[i]
			cd.Confirmed, cd.Tried = &conf.Confirmed, &conf.Tried
			cd.Failing, cd.FailingSymptom, cd.Passing, cd.Edit = conf.Failing, conf.Symptom, conf.Passing, conf.Edit
		}
		doc.Causes = append(doc.Causes, cd)
	}
	for _, r := range s.Results {
		res := result{ID: r.ID, Status: r.Status, Source: r.Source, Detail: r.Detail, Case: r.Case, Compared: r.Level}
		if r.Source != "" {
			res.Expected = casefile.ExpectedFrom(r.Op, r.Source)
		}
		if r.Case != "" {
			res.Op, res.Spec, res.Inputs, res.Show = r.Op, r.Spec, r.Inputs, ShowCommand(r.ID, s.CasesDir)
		}
		if !r.Signature.IsZero() {
			res.Signature = r.Signature.String()
		}
		if r.Cause != nil {
			rule := string(r.Cause.Rule)
			res.Cause, res.Group = &rule, r.Cause.Key()
			res.Symptom = r.Signature.Op + "/" + CauseSymptom(r.Signature)
		}
		doc.Results = append(doc.Results, res)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(doc)
}

// ShowCommand returns the conform show command line that reproduces the
// case id of the corpus under dir ("" for the embedded corpus), each
// argument quoted for a POSIX shell where it needs to be.
func ShowCommand(id, dir string) string {
	cmd := "conform show " + shellQuote(id)
	if dir != "" {
		cmd += " --cases " + shellQuote(dir)
	}
	return cmd
}

// shellQuote returns s as one word of a POSIX shell: as it is if it holds
// only letters, digits and "_-./:=@,+", else in single quotes.
func shellQuote(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./:=@,+", r))) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// WriteJUnit writes the summary as a JUnit XML report, the format CI
// systems display: one testcase per case, classname "conform.<group>"
// (the part of the ID before the first '/'), and one failing testcase per
// integrity problem listed (and one for the problems not listed). A
// failure with a cause names its rule as the failure's type.
func (s *Summary) WriteJUnit(w io.Writer) error {
	type message struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr,omitempty"`
		Text    string `xml:",chardata"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Failure   *message `xml:"failure,omitempty"`
		Skipped   *message `xml:"skipped,omitempty"`
	}
	type testsuite struct {
		XMLName  xml.Name   `xml:"testsuite"`
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Skipped  int        `xml:"skipped,attr"`
		Cases    []testcase `xml:"testcase"`
	}
	more, moreLine := s.MoreIntegrity()
	moreCases := min(more, 1) // the problems not listed are one testcase
	suite := testsuite{Name: "conform", Tests: len(s.Results) + len(s.Integrity) + moreCases + len(s.Protocol),
		Failures: s.Failed + len(s.Integrity) + moreCases + len(s.Protocol), Skipped: s.Skipped}
	for i, p := range s.Protocol {
		suite.Cases = append(suite.Cases, testcase{Name: fmt.Sprintf("protocol-%d", i+1), Classname: "conform.protocol",
			Failure: &message{Message: p, Text: p}})
	}
	for _, p := range s.Integrity {
		suite.Cases = append(suite.Cases, testcase{Name: p.Path, Classname: "conform.integrity",
			Failure: &message{Message: p.String(), Text: p.String()}})
	}
	if more > 0 {
		suite.Cases = append(suite.Cases, testcase{Name: "more-integrity-problems", Classname: "conform.integrity",
			Failure: &message{Message: moreLine, Text: moreLine}})
	}
	for _, r := range s.Results {
		group, _, _ := strings.Cut(r.ID, "/")
		tc := testcase{Name: r.ID, Classname: "conform." + group}
		text := r.Detail
		if r.Case != "" {
			text += "\ncase: " + r.Case
		}
		if !r.Signature.IsZero() {
			text += "\nsignature: " + r.Signature.String()
		}
		if r.Cause != nil {
			text += "\ncause: " + causeName(r.Cause)
		}
		if r.Source != "" {
			text += "\nexpected value from: " + r.Source
		}
		switch r.Status {
		case Fail:
			tc.Failure = &message{Message: r.Detail, Text: text}
			if r.Cause != nil {
				tc.Failure.Type = string(r.Cause.Rule)
			}
		case Skip:
			tc.Skipped = &message{Message: r.Detail}
		}
		suite.Cases = append(suite.Cases, tc)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", " ")
	if err := enc.Encode(suite); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
