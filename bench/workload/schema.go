package workload

import (
	"fmt"
	"strings"
)

// Column is a column name and its SQL type (valid in all three engines).
type Column struct{ Name, Type string }

// Table is a benchmark table and how dorisgo distributes it.
type Table struct {
	Name    string
	Columns []Column
	Key     string // DUPLICATE KEY and distribution column
	Buckets int    // 0: the suite default
	Group   string // colocate group, "" for none
}

// Suite is one benchmark: its tables and queries.
type Suite struct {
	Name    string
	Tables  []Table
	Queries []Query
}

// Query is one benchmark query.
type Query struct {
	Name string
	SQL  string
}

func cols(spec string) []Column {
	var out []Column
	for _, c := range strings.Split(spec, ",") {
		c = strings.TrimSpace(c)
		name, typ, _ := strings.Cut(c, " ")
		out = append(out, Column{name, strings.ReplaceAll(typ, ";", ",")})
	}
	return out
}

// DorisDDL renders the Doris CREATE TABLE: DUPLICATE KEY on the distribution
// column, HASH buckets, one replica, and the colocate group if any.
func (t Table) DorisDDL(defaultBuckets int) string {
	b := t.Buckets
	if b == 0 {
		b = defaultBuckets
	}
	props := `"replication_num" = "1"`
	if t.Group != "" {
		props += fmt.Sprintf(`, "colocate_with" = "%s"`, t.Group)
	}
	return fmt.Sprintf("CREATE TABLE %s (%s) DUPLICATE KEY(%s) DISTRIBUTED BY HASH(%s) BUCKETS %d PROPERTIES (%s)",
		t.Name, t.columnList(), t.Columns[0].Name, t.Key, b, props)
}

// PlainDDL is the CREATE TABLE for DuckDB and go-mysql-server.
func (t Table) PlainDDL() string {
	return fmt.Sprintf("CREATE TABLE %s (%s)", t.Name, t.columnList())
}

func (t Table) columnList() string {
	parts := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		parts[i] = c.Name + " " + c.Type + " NOT NULL"
	}
	return strings.Join(parts, ", ")
}

// DuckDBColumns is the columns={...} struct of DuckDB's read_csv.
func (t Table) DuckDBColumns() string {
	parts := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		parts[i] = fmt.Sprintf("'%s': '%s'", c.Name, c.Type)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// Get returns the suite by name at scale factor sf (TPC-H Q11's fraction
// depends on it).
func Get(name string, sf float64) (Suite, error) {
	switch name {
	case "ssb":
		return Suite{Name: "ssb", Tables: ssbTables, Queries: ssbQueries}, nil
	case "tpch":
		return Suite{Name: "tpch", Tables: tpchTables, Queries: tpchQueries(sf)}, nil
	}
	return Suite{}, fmt.Errorf("unknown suite %q (ssb, tpch)", name)
}

var ssbTables = []Table{
	{Name: "dates", Key: "d_datekey", Buckets: 1, Columns: cols(`d_datekey INT, d_date VARCHAR(20),
		d_dayofweek VARCHAR(10), d_month VARCHAR(11), d_year INT, d_yearmonthnum INT, d_yearmonth VARCHAR(9),
		d_daynuminweek INT, d_daynuminmonth INT, d_daynuminyear INT, d_monthnuminyear INT,
		d_weeknuminyear INT, d_sellingseason VARCHAR(14), d_lastdayinweekfl INT,
		d_lastdayinmonthfl INT, d_holidayfl INT, d_weekdayfl INT`)},
	{Name: "customer", Key: "c_custkey", Columns: cols(`c_custkey INT, c_name VARCHAR(26),
		c_address VARCHAR(41), c_city VARCHAR(11), c_nation VARCHAR(16), c_region VARCHAR(13),
		c_phone VARCHAR(16), c_mktsegment VARCHAR(11)`)},
	{Name: "supplier", Key: "s_suppkey", Columns: cols(`s_suppkey INT, s_name VARCHAR(26),
		s_address VARCHAR(41), s_city VARCHAR(11), s_nation VARCHAR(16), s_region VARCHAR(13),
		s_phone VARCHAR(16)`)},
	{Name: "part", Key: "p_partkey", Columns: cols(`p_partkey INT, p_name VARCHAR(23),
		p_mfgr VARCHAR(7), p_category VARCHAR(8), p_brand1 VARCHAR(10), p_color VARCHAR(12),
		p_type VARCHAR(26), p_size INT, p_container VARCHAR(11)`)},
	{Name: "lineorder", Key: "lo_orderkey", Columns: cols(`lo_orderkey BIGINT, lo_linenumber INT,
		lo_custkey INT, lo_partkey INT, lo_suppkey INT, lo_orderdate INT, lo_orderpriority VARCHAR(16),
		lo_shippriority INT, lo_quantity INT, lo_extendedprice INT, lo_ordtotalprice INT,
		lo_discount INT, lo_revenue INT, lo_supplycost INT, lo_tax INT, lo_commitdate INT,
		lo_shipmode VARCHAR(11)`)},
}

var tpchTables = []Table{
	{Name: "region", Key: "r_regionkey", Buckets: 1, Columns: cols(`r_regionkey INT, r_name VARCHAR(25), r_comment VARCHAR(152)`)},
	{Name: "nation", Key: "n_nationkey", Buckets: 1, Columns: cols(`n_nationkey INT, n_name VARCHAR(25), n_regionkey INT, n_comment VARCHAR(152)`)},
	{Name: "supplier", Key: "s_suppkey", Columns: cols(`s_suppkey INT, s_name VARCHAR(25), s_address VARCHAR(40),
		s_nationkey INT, s_phone VARCHAR(15), s_acctbal DECIMAL(15;2), s_comment VARCHAR(101)`)},
	{Name: "part", Key: "p_partkey", Group: "tpch_part", Columns: cols(`p_partkey INT, p_name VARCHAR(55),
		p_mfgr VARCHAR(25), p_brand VARCHAR(10), p_type VARCHAR(25), p_size INT, p_container VARCHAR(10),
		p_retailprice DECIMAL(15;2), p_comment VARCHAR(23)`)},
	{Name: "partsupp", Key: "ps_partkey", Group: "tpch_part", Columns: cols(`ps_partkey INT, ps_suppkey INT,
		ps_availqty INT, ps_supplycost DECIMAL(15;2), ps_comment VARCHAR(199)`)},
	{Name: "customer", Key: "c_custkey", Columns: cols(`c_custkey INT, c_name VARCHAR(25), c_address VARCHAR(40),
		c_nationkey INT, c_phone VARCHAR(15), c_acctbal DECIMAL(15;2), c_mktsegment VARCHAR(10),
		c_comment VARCHAR(117)`)},
	{Name: "orders", Key: "o_orderkey", Group: "tpch_order", Columns: cols(`o_orderkey BIGINT, o_custkey INT,
		o_orderstatus CHAR(1), o_totalprice DECIMAL(15;2), o_orderdate DATE, o_orderpriority VARCHAR(15),
		o_clerk VARCHAR(15), o_shippriority INT, o_comment VARCHAR(79)`)},
	{Name: "lineitem", Key: "l_orderkey", Group: "tpch_order", Columns: cols(`l_orderkey BIGINT, l_partkey INT,
		l_suppkey INT, l_linenumber INT, l_quantity DECIMAL(15;2), l_extendedprice DECIMAL(15;2),
		l_discount DECIMAL(15;2), l_tax DECIMAL(15;2), l_returnflag CHAR(1), l_linestatus CHAR(1),
		l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE, l_shipinstruct VARCHAR(25),
		l_shipmode VARCHAR(10), l_comment VARCHAR(44)`)},
}
