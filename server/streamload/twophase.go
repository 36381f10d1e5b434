package streamload

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// stream2PCResp is Doris's answer to /api/{db}/_stream_load_2pc.
type stream2PCResp struct {
	Status string `json:"status"`
	Msg    string `json:"msg"`
}

// Serve2PC serves PUT /api/{db}/_stream_load_2pc, the second phase of
// a two-phase stream load: txn_operation commit or abort of the
// PRECOMMITTED load named by txn_id or label. It needs LOAD_PRIV on the
// load's table.
func (l *Loader) Serve2PC(w http.ResponseWriter, r *http.Request, a *catalog.Access) {
	fail := func(code int, msg string) { writeJSON(w, code, stream2PCResp{Status: "Fail", Msg: msg}) }
	db := r.PathValue("db")
	op := strings.ToLower(strings.TrimSpace(r.Header.Get("txn_operation")))
	if op != "commit" && op != "abort" {
		fail(http.StatusBadRequest, `txn_operation must be "commit" or "abort"`)
		return
	}
	if _, err := l.cfg.Catalog.Database(db); err != nil {
		fail(http.StatusOK, sqlerr.As(err).Message)
		return
	}
	var txn *catalog.Txn
	idText, label := strings.TrimSpace(r.Header.Get("txn_id")), strings.TrimSpace(r.Header.Get("label"))
	switch {
	case idText != "" && label != "":
		fail(http.StatusBadRequest, "send txn_id or label, not both")
		return
	case idText != "":
		id, err := strconv.ParseInt(idText, 10, 64)
		if err != nil {
			fail(http.StatusBadRequest, "Invalid txn_id: "+idText)
			return
		}
		t, ok := l.cfg.Catalog.Txn(storage.TxnID(id))
		if !ok {
			fail(http.StatusOK, fmt.Sprintf("transaction [%d] not found", id))
			return
		}
		txn = t
	case label != "":
		t, ok := l.cfg.Catalog.TxnByLabel(db, label)
		if !ok {
			fail(http.StatusOK, fmt.Sprintf("label [%s] not found in database %s", label, db))
			return
		}
		txn = t
	default:
		fail(http.StatusBadRequest, "send txn_id or label")
		return
	}
	for _, tid := range txn.Tables {
		if t, ok := l.cfg.Catalog.TableByID(tid); ok && !a.Table(db, t.Name, catalog.WantLoad) {
			fail(http.StatusForbidden, sqlerr.TableAccessDenied.New("LOAD", a.User, a.Host, db+"."+t.Name).Message)
			return
		}
	}
	var err error
	if op == "commit" {
		err = l.cfg.Coord.CommitPrecommitted(r.Context(), db, txn.ID)
	} else {
		err = l.cfg.Coord.AbortPrecommitted(r.Context(), db, txn.ID, "user abort")
	}
	if err != nil {
		fail(http.StatusOK, sqlerr.As(err).Message)
		return
	}
	writeJSON(w, http.StatusOK, stream2PCResp{Status: "Success", Msg: fmt.Sprintf("transaction [%d] %s successfully.", txn.ID, op)})
}
