package server

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// varKind is a system variable's value type.
type varKind uint8

const (
	vBool varKind = iota
	vInt
	vFloat
	vString
)

// sysVar declares one system variable: its type, default and whether a
// session may change it (read-only ones report server facts).
type sysVar struct {
	kind     varKind
	def      string
	readOnly bool
	// enum, if set, lists the accepted values (case-insensitive).
	enum []string
	// rng, if set, is the closed range a number must lie in.
	rng *[2]float64
}

// sysVars are the variables dorisgo knows: Doris's planning variables
// (INTERFACE.md) and what MySQL clients and GUI tools read on connect.
var sysVars = map[string]sysVar{
	// Doris planning and execution.
	"enable_bucket_shuffle_join":               {kind: vBool, def: "true"},
	"disable_colocate_plan":                    {kind: vBool, def: "false"},
	"disable_join_reorder":                     {kind: vBool, def: "false"},
	"auto_broadcast_join_threshold":            {kind: vFloat, def: "0.8"},
	"broadcast_row_count_limit":                {kind: vFloat, def: "30000000"},
	"prefer_join_method":                       {kind: vString, def: "broadcast", enum: []string{"broadcast", "shuffle"}},
	"parallel_pipeline_task_num":               {kind: vInt, def: "0"},
	"enable_local_shuffle":                     {kind: vBool, def: "true"},
	"single_backend_scan_rows":                 {kind: vInt, def: "4096", rng: &[2]float64{0, 1e12}}, // a fragment whose scans hold at most this many rows runs on one backend (0: never; schedule.go)
	"enable_plan_check":                        {kind: vBool, def: "false"},                          // re-verify each plan with planner/check (tests turn it on)
	"runtime_filter_mode":                      {kind: vString, def: "GLOBAL", enum: []string{"off", "local", "global"}},
	"runtime_filter_wait_time_ms":              {kind: vInt, def: "1000", rng: &[2]float64{0, 600000}}, // a scan's wait for its global runtime filters
	"enable_adaptive_join":                     {kind: vBool, def: "true"},                             // PARTITIONED joins may run as BROADCAST once their build side is measured
	"adaptive_join_skew_share":                 {kind: vFloat, def: "0.2", rng: &[2]float64{0, 1}},     // a probe key over this share of a shuffled adaptive join is spread (0: never)
	"disable_nereids_rules":                    {kind: vString, def: ""},                               // comma-separated rewrite rules not to apply (AGG_SCALAR_SUBQUERY_TO_WINDOW_FUNCTION: planner/bind/aggwindow.go)
	"exec_mem_limit":                           {kind: vInt, def: "2147483648"},
	"enable_spill":                             {kind: vBool, def: "false"}, // hash joins spill past exec_mem_limit (spill.go)
	"spill_hash_join_partition_count":          {kind: vInt, def: "32", rng: &[2]float64{2, 32}},
	"query_timeout":                            {kind: vInt, def: "900"},
	"insert_timeout":                           {kind: vInt, def: "14400"},
	"show_all_fe_connection":                   {kind: vBool, def: "false"},                              // SHOW PROCESSLIST lists every frontend's connections (processlist.go)
	"innodb_lock_wait_timeout":                 {kind: vInt, def: "50", rng: &[2]float64{1, 1073741824}}, // seconds an UPDATE waits for its table (tablelock.go)
	"broadcast_hashtable_mem_limit_percentage": {kind: vFloat, def: "0.2"},
	"enable_nereids_planner":                   {kind: vBool, def: "true"},
	// Statistics (analyze.go, autoanalyze.go); both act globally.
	"enable_auto_analyze":          {kind: vBool, def: "true"},
	"table_stats_health_threshold": {kind: vInt, def: "90"},
	"show_hidden_columns":          {kind: vBool, def: "false"},
	"skip_delete_sign":             {kind: vBool, def: "false"},
	// MySQL compatibility.
	"autocommit":               {kind: vBool, def: "1"},
	"auto_increment_increment": {kind: vInt, def: "1"},
	"character_set_client":     {kind: vString, def: "utf8mb4"},
	"character_set_connection": {kind: vString, def: "utf8mb4"},
	"character_set_results":    {kind: vString, def: "utf8mb4"},
	"character_set_server":     {kind: vString, def: "utf8mb4"},
	"character_set_database":   {kind: vString, def: "utf8mb4"},
	"collation_connection":     {kind: vString, def: "utf8mb4_0900_bin"},
	"collation_server":         {kind: vString, def: "utf8mb4_0900_bin"},
	"collation_database":       {kind: vString, def: "utf8mb4_0900_bin"},
	"init_connect":             {kind: vString, def: ""},
	"interactive_timeout":      {kind: vInt, def: "3600"},
	"license":                  {kind: vString, def: "Apache License, Version 2.0", readOnly: true},
	"lower_case_table_names":   {kind: vInt, def: "0", readOnly: true},
	"max_allowed_packet":       {kind: vInt, def: "67108864"},
	"max_connections":          {kind: vInt, def: "1024"},
	"net_buffer_length":        {kind: vInt, def: "16384"},
	"net_write_timeout":        {kind: vInt, def: "60"},
	"performance_schema":       {kind: vBool, def: "0", readOnly: true},
	"query_cache_size":         {kind: vInt, def: "1048576"},
	"query_cache_type":         {kind: vString, def: "OFF"},
	"sql_mode":                 {kind: vString, def: "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES"},
	"sql_select_limit":         {kind: vInt, def: "9223372036854775807"},
	"sql_safe_updates":         {kind: vBool, def: "0"},
	"sql_auto_is_null":         {kind: vBool, def: "0"},
	"system_time_zone":         {kind: vString, def: "UTC", readOnly: true},
	"time_zone":                {kind: vString, def: "UTC"},
	"transaction_isolation":    {kind: vString, def: "REPEATABLE-READ"},
	"tx_isolation":             {kind: vString, def: "REPEATABLE-READ"},
	"transaction_read_only":    {kind: vBool, def: "0"},
	"tx_read_only":             {kind: vBool, def: "0"},
	"version":                  {kind: vString, def: serverVersion, readOnly: true},
	"version_comment":          {kind: vString, def: "dorisgo (Apache Doris compatible)", readOnly: true},
	"wait_timeout":             {kind: vInt, def: "28800"},
	"net_read_timeout":         {kind: vInt, def: "60"},
	"div_precision_increment":  {kind: vInt, def: "4"},
	"default_storage_engine":   {kind: vString, def: "olap"},
	"names":                    {kind: vString, def: "utf8mb4"},
	"sql_notes":                {kind: vBool, def: "1"},
	"sql_warnings":             {kind: vBool, def: "0"},
	"unique_checks":            {kind: vBool, def: "1"},
	"foreign_key_checks":       {kind: vBool, def: "1"},
	"have_query_cache":         {kind: vString, def: "YES", readOnly: true},
	"language":                 {kind: vString, def: "/palo/share/english/", readOnly: true},
	"group_concat_max_len":     {kind: vInt, def: "1024"},
	"warning_count":            {kind: vInt, def: "0", readOnly: true}, // the last statement's (SHOW WARNINGS)
	"error_count":              {kind: vInt, def: "0", readOnly: true},
	"max_error_count":          {kind: vInt, def: "64"},   // SHOW WARNINGS rows kept (at most expr.MaxWarnings)
	"qe_slow_log_ms":           {kind: vInt, def: "5000"}, // Doris's: a statement running longer is logged
	// Query profiles (profiles.go): kept in memory, the global value
	// counts; written to disk when the statement took this long (-1 never).
	"max_query_profile_num":     {kind: vInt, def: "100"},
	"max_spilled_profile_num":   {kind: vInt, def: "500"},
	"auto_profile_threshold_ms": {kind: vInt, def: "500"},
}

// serverVersion is what the handshake and @@version report (Doris says 5.7.99).
const serverVersion = "5.7.99-dorisgo"

// globalVars holds SET GLOBAL values, shared by all sessions; new sessions
// start from them.
type globalVars struct {
	mu   sync.RWMutex
	vals map[string]string
}

func newGlobalVars() *globalVars {
	g := &globalVars{vals: map[string]string{}}
	for k, v := range sysVars {
		g.vals[k] = v.def
	}
	return g
}

func (g *globalVars) snapshot() map[string]string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	out := make(map[string]string, len(g.vals))
	for k, v := range g.vals {
		out[k] = v
	}
	return out
}

func (g *globalVars) get(name string) (string, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	v, ok := g.vals[name]
	return v, ok
}

func (g *globalVars) set(name, val string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.vals[name] = val
}

// normalizeVar checks and canonicalises a value for variable name.
func normalizeVar(name, val string) (string, error) {
	sv, ok := sysVars[name]
	if !ok {
		return "", sqlerr.UnknownSystemVar.New(name)
	}
	if sv.readOnly {
		return "", sqlerr.Doris.New(fmt.Sprintf("Variable '%s' is a read only variable", name))
	}
	switch sv.kind {
	case vBool:
		switch strings.ToLower(val) {
		case "1", "true", "on":
			if sv.def == "0" || sv.def == "1" {
				return "1", nil
			}
			return "true", nil
		case "0", "false", "off":
			if sv.def == "0" || sv.def == "1" {
				return "0", nil
			}
			return "false", nil
		}
		return "", sqlerr.WrongValueForVar.New(name, val)
	case vInt:
		i, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			return "", sqlerr.WrongTypeForVar.New(name)
		}
		if r := sv.rng; r != nil && (float64(i) < r[0] || float64(i) > r[1]) {
			return "", sqlerr.WrongValueForVar.New(name, val)
		}
	case vFloat:
		f, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return "", sqlerr.WrongTypeForVar.New(name)
		}
		if r := sv.rng; r != nil && (f < r[0] || f > r[1]) {
			return "", sqlerr.WrongValueForVar.New(name, val)
		}
	case vString:
		if name == "sql_mode" {
			return normalizeSQLMode(val)
		}
		if name == "time_zone" {
			if _, err := eval.LoadZone(val); err != nil {
				return "", err
			}
		}
		if sv.enum != nil {
			for _, e := range sv.enum {
				if strings.EqualFold(e, val) {
					return e, nil
				}
			}
			return "", sqlerr.WrongValueForVar.New(name, val)
		}
	}
	return val, nil
}

// varDatum types a variable's value for SELECT @@name.
func varDatum(name, val string) types.Datum {
	switch sysVars[name].kind {
	case vInt:
		i, _ := strconv.ParseInt(val, 10, 64)
		return types.IntDatum(i)
	case vFloat:
		f, _ := strconv.ParseFloat(val, 64)
		return types.FloatDatum(f)
	case vBool:
		if val == "1" || val == "0" {
			i, _ := strconv.ParseInt(val, 10, 64)
			return types.IntDatum(i)
		}
	}
	return types.StringDatum(val)
}

// sortedVarNames lists the variables in name order (SHOW VARIABLES).
func sortedVarNames() []string {
	out := make([]string, 0, len(sysVars))
	for k := range sysVars {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// sessionVars is one session's variables.
type sessionVars struct {
	vals map[string]string
	user map[string]types.Datum
	g    *globalVars
}

func (v *sessionVars) get(name string) string { return v.vals[name] }

func (v *sessionVars) int(name string) int64 {
	i, _ := strconv.ParseInt(v.vals[name], 10, 64)
	return i
}

// System implements bind.Vars.
func (v *sessionVars) System(name string, global bool) (types.Datum, error) {
	if _, ok := sysVars[name]; !ok {
		return types.Datum{}, sqlerr.UnknownSystemVar.New(name)
	}
	if global {
		val, _ := v.g.get(name)
		return varDatum(name, val), nil
	}
	return varDatum(name, v.vals[name]), nil
}

// User implements bind.Vars.
func (v *sessionVars) User(name string) types.Datum {
	if d, ok := v.user[name]; ok {
		return d
	}
	return types.NullDatum(types.StringT)
}
