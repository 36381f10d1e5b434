package physical_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestZZWhere(t *testing.T) {
	e := hostileEnv(t)
	for _, n := range []int{250, 500, 1000} {
		q := hostileSQL("chain", n)
		var w []string
		for i := 1; i <= n; i++ {
			w = append(w, fmt.Sprintf("t%d.v = %d", i, i))
		}
		q += " WHERE " + strings.Join(w, " AND ")
		t0 := time.Now()
		_, err := e.planCtx(context.Background(), q)
		t.Log(n, time.Since(t0), err)
	}
}
