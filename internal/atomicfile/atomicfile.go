// Package atomicfile replaces files so that a crash leaves the old or the
// new content, never a mix: the node's card, API address, known peers and
// listen addresses are written through it. It keeps no state.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces path with data through a temporary file in the same
// directory, synced, then renamed over path.
func Write(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, werr := tmp.Write(data)
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(name, perm)
	}
	if werr == nil {
		werr = os.Rename(name, path)
	}
	if werr != nil {
		os.Remove(name)
	}
	return werr
}
