package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
	"github.com/adpnode/adpnode/internal/termtext"
	"github.com/spf13/cobra"
)

// newCardCmd returns the `card` command with the offline subcommands sign,
// verify and validate; other files add theirs to it.
func newCardCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "card", Short: "Work with Agent Cards"}
	cmd.AddCommand(newCardSignCmd(time.Now), newCardVerifyCmd(), newCardValidateCmd())
	return cmd
}

// errReported marks a failure whose details were already written to
// standard output as JSON.
var errReported = errors.New("failed (details above)")

func newCardSignCmd(now func() time.Time) *cobra.Command {
	var keyPath string
	cmd := &cobra.Command{
		Use:   "sign --key FILE [CARD]",
		Short: "Sign a card: set id from the key, increment seq, set metadata.updated_at, print the signed card",
		Long: `Sign reads a card from CARD (standard input when absent or "-"), sets its
id from the key (replacing any id the card holds, such as a template's
placeholder; a note on standard error names an id that was replaced),
increments seq (absent counts as 0), sets metadata.updated_at to the
current time, validates it, signs it per ADP 3.2 (JCS, Ed25519) and prints
the signed card in canonical (JCS) form.

An A2A AgentCard (a document with supportedInterfaces or signatures, as
'adpnode card convert --to a2a' writes) is signed per A2A 1.0 Section 8.4
instead: a JWS entry (alg EdDSA, kid the agent id of the key) is added to
its signatures, replacing an earlier one by the same key, and the card is
printed in canonical (JCS) form without members at their default value.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if keyPath == "" {
				return usagef("--key FILE is required")
			}
			sk, err := loadKey(keyPath)
			if err != nil {
				return err
			}
			data, name, err := readArg(cmd, args, bridge.MaxDocSize)
			if err != nil {
				return err
			}
			if isA2ACard(data) {
				out, err := bridge.SignA2A(data, sk)
				if err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				_, err = cmd.OutOrStdout().Write(append(out, '\n'))
				return err
			}
			c, err := parseCard(data, name)
			if err != nil {
				return err
			}
			var seq uint64
			if c.Seq != nil {
				seq = *c.Seq
			}
			if seq >= adp.MaxSeq {
				return fmt.Errorf("seq %d cannot be incremented (limit %d)", seq, uint64(adp.MaxSeq))
			}
			seq++
			c.Seq = &seq
			if c.Metadata == nil {
				c.Metadata = &adp.Metadata{}
			}
			c.Metadata.UpdatedAt = now().UTC().Format(time.RFC3339)
			// The id is the key's, whatever the card said: Sign sets an
			// empty id from the key.
			old := c.ID
			c.ID = ""
			if err := c.Sign(sk); err != nil {
				return err
			}
			if old != "" && !sameAgent(old, c.ID) {
				fmt.Fprintf(cmd.ErrOrStderr(), "card sign: id %s replaced by the key's %s\n", termtext.Escape(old), c.ID)
			}
			_, err = cmd.OutOrStdout().Write(append(c.Raw(), '\n'))
			return err
		},
	}
	cmd.Flags().StringVar(&keyPath, "key", "", "Ed25519 key file written by `adpnode key new` (required)")
	return cmd
}

// sameAgent reports whether the agent id a names the key of the agent id
// own (either peer ID form).
func sameAgent(a, own string) bool {
	p, err := adp.PeerIDFromAgentID(a)
	return err == nil && adp.AgentID(p) == own
}

// verifyResult is the --json output of card verify and card validate.
type verifyResult struct {
	Valid    bool          `json:"valid"`
	Format   string        `json:"format,omitempty"` // "a2a" for an A2A AgentCard
	AgentID  string        `json:"agent_id,omitempty"`
	Seq      *uint64       `json:"seq,omitempty"`
	Error    string        `json:"error,omitempty"`
	Problems []adp.Problem `json:"problems,omitempty"`
}

func newCardVerifyCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "verify [CARD]",
		Short: "Check a card's signature against the key named by its id; exit 1 with the reason when it fails",
		Long: `Verify checks the signature of an ADP Agent Card (ADP 3.2) against the key
its id names. Given an A2A AgentCard instead (a document with
supportedInterfaces or signatures), it checks its JWS signatures (A2A 1.0
Section 8.4) against the keys their kid names (an agent id) and reports
the kid of the first that verifies.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, name, err := readArg(cmd, args, bridge.MaxDocSize)
			if err != nil {
				// Nothing was read, so there is no verdict to report.
				return err
			}
			if isA2ACard(data) {
				return verifyA2A(cmd, data, asJSON)
			}
			c, err := parseCard(data, name)
			if err == nil {
				err = c.Verify()
			}
			if err != nil {
				if asJSON {
					if werr := writeJSONLine(cmd.OutOrStdout(), verifyResult{Error: err.Error(), Problems: problemsOf(err)}); werr != nil {
						return werr
					}
					return errReported
				}
				return fmt.Errorf("signature not valid: %w", err)
			}
			if asJSON {
				return writeJSONLine(cmd.OutOrStdout(), verifyResult{Valid: true, AgentID: c.ID, Seq: c.Seq})
			}
			seq := "none"
			if c.Seq != nil {
				seq = fmt.Sprint(*c.Seq)
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "signature valid: %s seq %s\n", c.ID, seq)
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"valid": bool, "agent_id", "seq", "error"}`)
	return cmd
}

// verifyA2A is card verify for an A2A AgentCard.
func verifyA2A(cmd *cobra.Command, data []byte, asJSON bool) error {
	kid, err := bridge.VerifyA2A(data, nil)
	if err != nil {
		if asJSON {
			if werr := writeJSONLine(cmd.OutOrStdout(), verifyResult{Format: string(bridge.FormatA2A), Error: err.Error()}); werr != nil {
				return werr
			}
			return errReported
		}
		return fmt.Errorf("A2A card signature not valid: %w", err)
	}
	if asJSON {
		return writeJSONLine(cmd.OutOrStdout(), verifyResult{Valid: true, Format: string(bridge.FormatA2A), AgentID: kid})
	}
	_, err = fmt.Fprintf(cmd.OutOrStdout(), "A2A card signature valid: %s\n", kid)
	return err
}

// isA2ACard reports whether data has the shape of an A2A AgentCard rather
// than an ADP card: a JSON object with supportedInterfaces or signatures
// (A2A) and without the ADP signature member.
func isA2ACard(data []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return false
	}
	_, adpSig := top["signature"]
	_, ifaces := top["supportedInterfaces"]
	_, sigs := top["signatures"]
	return !adpSig && (ifaces || sigs)
}

func newCardValidateCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate [CARD]",
		Short: "Check a card against ADP section 3 and 7.6; exit 1 listing every problem",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, name, err := readArg(cmd, args, adp.MaxCardSize)
			if err != nil {
				// Nothing was read, so there is no verdict to report.
				return err
			}
			c, err := parseCard(data, name)
			if err == nil {
				err = c.Validate()
			}
			if err != nil {
				if asJSON {
					if werr := writeJSONLine(cmd.OutOrStdout(), verifyResult{Error: firstLine(err), Problems: problemsOf(err)}); werr != nil {
						return werr
					}
					return errReported
				}
				var ve *adp.ValidationError
				if errors.As(err, &ve) {
					return fmt.Errorf("card not valid, %d problem(s):\n%w", len(ve.Problems), err)
				}
				return fmt.Errorf("card not valid: %w", err)
			}
			if asJSON {
				return writeJSONLine(cmd.OutOrStdout(), verifyResult{Valid: true, AgentID: c.ID, Seq: c.Seq})
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), "valid")
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"valid": bool, "problems": [{"path", "message"}]}`)
	return cmd
}

// readCard reads and parses the card named by args (or standard input).
func readCard(cmd *cobra.Command, args []string) (*adp.Card, error) {
	data, name, err := readArg(cmd, args, adp.MaxCardSize)
	if err != nil {
		return nil, err
	}
	return parseCard(data, name)
}

// parseCard parses a card read from name (a file or standard input).
func parseCard(data []byte, name string) (*adp.Card, error) {
	c, err := adp.ParseCard(data)
	if err != nil {
		var ve *adp.ValidationError
		if errors.As(err, &ve) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return c, nil
}

func problemsOf(err error) []adp.Problem {
	var ve *adp.ValidationError
	if errors.As(err, &ve) {
		return ve.Problems
	}
	return nil
}

func firstLine(err error) string {
	var ve *adp.ValidationError
	if errors.As(err, &ve) {
		return fmt.Sprintf("%d problem(s)", len(ve.Problems))
	}
	return err.Error()
}
