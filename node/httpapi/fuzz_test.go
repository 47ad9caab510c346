package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"
)

// FuzzDecodeAPIBody: any body decodes into an API request or fails with
// the error model (400, a JSON Pointer path or none), never panics; what
// decodes encodes and decodes again to the same request.
func FuzzDecodeAPIBody(f *testing.F) {
	for _, seed := range []string{
		`{"agent":"agent://k51x","method":"echo","body":{"a":[1,2]},"stream":true,"timeout_ms":5}`,
		`{"agent":1}`, `{"body":}`, `[]`, `{"x":1}`, `{"agent":"a"} {}`, ``, `{"timeout_ms":1e99}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var in InvokeRequest
		err := decodeJSONBytes(body, &in)
		if err != nil {
			var ae *Error
			if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest || ae.Code != codeInvalidRequest || (ae.Path != "" && ae.Path[0] != '/') {
				t.Fatalf("error %#v is not a 400 in the error model", err)
			}
			return
		}
		again, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		var back InvokeRequest
		if err := decodeJSONBytes(again, &back); err != nil {
			t.Fatalf("re-decoding %s: %v", again, err)
		}
		if back.Agent != in.Agent || back.Method != in.Method || back.Stream != in.Stream || back.TimeoutMS != in.TimeoutMS {
			t.Fatalf("round trip changed %+v to %+v", in, back)
		}
	})
}
