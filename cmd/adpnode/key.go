package main

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/termtext"
	"github.com/libp2p/go-libp2p/core/crypto"
	pb "github.com/libp2p/go-libp2p/core/crypto/pb"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/spf13/cobra"
)

// Key files hold the private key as libp2p crypto.MarshalPrivateKey bytes
// (the protobuf PrivateKey message: key type Ed25519 and the 64-octet
// private key), the format the node keeps its identity in. They are
// written with mode 0600.
const maxKeyFile = 4096

// keyInfo is the --json output of the key commands.
type keyInfo struct {
	File    string `json:"file,omitempty"`
	AgentID string `json:"agent_id"`
	PeerID  string `json:"peer_id"`
	DID     string `json:"did"`
}

func newKeyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "key",
		Short: "Create and inspect Ed25519 agent keys",
	}
	cmd.AddCommand(newKeyNewCmd(), newKeyIDCmd())
	return cmd
}

func newKeyNewCmd() *cobra.Command {
	var (
		out    string
		force  bool
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "new --out FILE",
		Short: "Write a new Ed25519 private key to FILE (mode 0600) and print its agent id",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usagef("--out FILE is required (a private key is never written to standard output)")
			}
			sk, _, err := crypto.GenerateEd25519Key(rand.Reader)
			if err != nil {
				return err
			}
			if err := writeKeyFile(out, sk, force); err != nil {
				return err
			}
			info, err := describeKey(sk)
			if err != nil {
				return err
			}
			info.File = out
			return printKeyInfo(cmd.OutOrStdout(), info, asJSON)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "file to write the key to (required)")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite FILE if it exists")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (file, agent_id, peer_id, did)")
	return cmd
}

func newKeyIDCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "id [FILE]",
		Short: "Print the agent id of the key in FILE (standard input when absent or \"-\")",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			raw, name, err := readArg(cmd, args, maxKeyFile)
			if err != nil {
				return err
			}
			sk, err := parseKey(raw)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			info, err := describeKey(sk)
			if err != nil {
				return err
			}
			return printKeyInfo(cmd.OutOrStdout(), info, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (agent_id, peer_id, did)")
	return cmd
}

// writeKeyFile writes sk to path with mode 0600, refusing to replace an
// existing file unless force is set.
func writeKeyFile(path string, sk crypto.PrivKey, force bool) error {
	raw, err := crypto.MarshalPrivateKey(sk)
	if err != nil {
		return err
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists; use --force to overwrite it", path)
	}
	if err != nil {
		return err
	}
	// An existing file keeps its mode on O_TRUNC: tighten it.
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(raw); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// loadKey reads an Ed25519 key file.
func loadKey(path string) (crypto.PrivKey, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > maxKeyFile {
		return nil, fmt.Errorf("%s: larger than %d octets, not a key file", path, maxKeyFile)
	}
	sk, err := parseKey(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sk, nil
}

func parseKey(raw []byte) (crypto.PrivKey, error) {
	sk, err := crypto.UnmarshalPrivateKey(raw)
	if err != nil {
		// The decoder speaks protobuf; say what the file is not.
		return nil, errors.New("not an adpnode key (create one with adpnode key new)")
	}
	if sk.Type() != pb.KeyType_Ed25519 {
		return nil, fmt.Errorf("%s key: %w", sk.Type(), adp.ErrKeyType)
	}
	return sk, nil
}

func describeKey(sk crypto.PrivKey) (keyInfo, error) {
	p, err := peer.IDFromPrivateKey(sk)
	if err != nil {
		return keyInfo{}, err
	}
	did, err := adp.DIDKey(sk.GetPublic())
	if err != nil {
		return keyInfo{}, err
	}
	return keyInfo{AgentID: adp.AgentID(p), PeerID: p.String(), DID: did}, nil
}

func printKeyInfo(w io.Writer, info keyInfo, asJSON bool) error {
	if asJSON {
		return writeJSONLine(w, info)
	}
	_, err := fmt.Fprintln(w, info.AgentID)
	return err
}

// writeJSONLine writes v as one line of JSON.
func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(termtext.EscapeJSON(b), '\n'))
	return err
}

// readArg reads the file named by args[0], or standard input when there
// is no argument or it is "-", refusing more than limit octets. It returns
// the data and a name for messages.
func readArg(cmd *cobra.Command, args []string, limit int) ([]byte, string, error) {
	var (
		r    io.Reader
		name = "standard input"
	)
	if len(args) == 0 || args[0] == "-" {
		r = cmd.InOrStdin()
	} else {
		f, err := openFile(args[0])
		if err != nil {
			return nil, "", err
		}
		defer f.Close()
		r, name = f, args[0]
	}
	data, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > limit {
		return nil, "", fmt.Errorf("%s: larger than %d octets", name, limit)
	}
	return data, name, nil
}

// openFile opens path for reading; its error names the file and the
// reason in plain words.
func openFile(path string) (*os.File, error) {
	f, err := os.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
	case errors.Is(err, fs.ErrPermission):
		return nil, fmt.Errorf("%s: %w", path, fs.ErrPermission)
	case err != nil:
		return nil, fmt.Errorf("cannot open %s: %w", path, err)
	}
	return f, nil
}
