package server

import (
	"fmt"

	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/types"
)

// showClusterBalance is SHOW PROC '/cluster_balance': Doris's Item/Number
// summary of the tablet scheduler (ClusterBalanceProcDir).
func (s *Session) showClusterBalance(w wire.ResultWriter) error {
	st := s.srv.coord.SchedulerStats()
	bal := s.srv.coord.BalanceStatus()
	alive := 0
	for _, b := range s.srv.cat.Backends() {
		if b.Alive {
			alive++
		}
	}
	items := []struct {
		name string
		n    int64
	}{
		{"cluster_load_stat", 1}, // one tag and medium: location_default, HDD
		{"working_slots", int64(alive)},
		{"sched_stat", 1},
		{"priority_repair", int64(s.srv.coord.PriorityTables())},
		{"pending_tablets", int64(bal.Pending)},
		{"running_tablets", int64(st.Running)},
		{"history_tablets", st.Done + st.Failed},
		// Not in Doris: the balance moves among running_tablets, and disable_balance.
		{"balance_running", int64(bal.Running)},
		{"balance_disabled", b2i(bal.Disabled)},
	}
	var rows [][]types.Datum
	for _, it := range items {
		rows = append(rows, []types.Datum{str(it.name), str(fmt.Sprint(it.n))})
	}
	return writeTable(w, []wire.Column{strCol("Item"), strCol("Number")}, rows)
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// showClusterLoadStat is SHOW PROC
// '/cluster_balance/cluster_load_stat/location_default/HDD': per backend
// its disk and replica count (Doris's ClusterLoadStatisticProcDir). The
// score is replica-based: replicas over the mean; Class LOW/MID/HIGH is
// below, within or above the balancer's replica tolerance of the mean.
func (s *Session) showClusterLoadStat(w wire.ResultWriter) error {
	bal := s.srv.coord.BalanceStatus()
	bes := s.srv.cat.Backends()
	total := 0
	for _, b := range bes {
		total += bal.Replicas[b.ID]
	}
	mean := 0.0
	if len(bes) > 0 {
		mean = float64(total) / float64(len(bes))
	}
	names := []string{"BeId", "Available", "UsedCapacity", "Capacity", "MaxDisk", "UsedPercent", "ReplicaNum", "CapCoeff", "ReplCoeff", "Score", "Class"}
	cols := make([]wire.Column, len(names))
	for i, n := range names {
		cols[i] = strCol(n)
	}
	var rows [][]types.Datum
	for _, b := range bes {
		n := bal.Replicas[b.ID]
		used := b.DiskTotal - b.DiskAvail
		pct := 0.0
		if b.DiskTotal > 0 {
			pct = 100 * float64(used) / float64(b.DiskTotal)
		}
		score := 0.0
		if mean > 0 {
			score = float64(n) / mean
		}
		class := "MID"
		switch {
		case float64(n) > mean+float64(bal.Tolerance):
			class = "HIGH"
		case float64(n) < mean-float64(bal.Tolerance):
			class = "LOW"
		}
		rows = append(rows, []types.Datum{str(fmt.Sprint(b.ID)), str(fmt.Sprint(b.Alive)), str(fmt.Sprint(used)), str(fmt.Sprint(b.DiskTotal)),
			str(fmt.Sprintf("%.2f %%", pct)), str(fmt.Sprintf("%.2f %%", pct)), str(fmt.Sprint(n)), str("0.0"), str("1.0"),
			str(fmt.Sprintf("%.3f", score)), str(class)})
	}
	return writeTable(w, cols, rows)
}
