package rpc

import (
	"context"
	"strings"
	"testing"
)

// TestCallAfterClose: a call on a closed connection fails naming the
// backend instead of dereferencing the cleared flight client.
func TestCallAfterClose(t *testing.T) {
	c, err := Dial("127.0.0.1:1", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	err = c.Do(context.Background(), ActHeartbeat, struct{}{}, nil)
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1 is closed") {
		t.Fatalf("Do after Close: %v", err)
	}
}
