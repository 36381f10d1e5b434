package server_test

// Write-path cases ported from Apache Doris's regression suite (Apache
// License 2.0): DELETE (delete_p0), light schema change (schema_change_p0)
// and stream load (load_p0/stream_load). As in e2e_doris_regression_test.go,
// each test replays the suite's DDL, data and statements and compares its
// qt_ queries with Doris's own .out file, copied verbatim into
// testdata/doris_regression with a header naming the suite, the commits and
// the licence. Data files a suite loads are copied the same way.
//
// Adapted, and why (per suite below as well):
//   - Doris-only table properties (in_memory, storage_format) are dropped;
//     replication_allocation "tag.location.default: 1" is written as
//     replication_num = 1.
//   - SET enable_vectorized_engine (a no-op in Doris 2.x) and "sync" (a
//     wait for FE metadata replay; dorisgo's metadata is synchronous) are
//     dropped.
//   - Doris's streamLoad action omits headers set to '' (it only sends
//     non-empty ones); the port sends the same non-empty headers.
//   - DROP TABLE ... FORCE is kept as Doris writes it: dorisgo accepts the
//     trailing FORCE (it has no recycle bin to skip), fixed with this port
//     (sql/parser dropForce).
//
// Suites considered and not ported: delete_p0/test_delete_from_partition
// (its tables are partitioned by two columns, RANGE(p1, p2) and
// LIST(l1, l2); dorisgo answers 1235 for multi-column partitioning);
// delete_p0/test_delete_where_in (its
// rows come from an S3 file, and its last case needs a sequence column);
// delete_p0 array/map/struct deletes and the delete-sign suites (ARRAY, MAP,
// STRUCT and the hidden delete-sign column are not in dorisgo yet);
// schema_change_p0/test_alter_table_drop_column (drives rollups through
// SHOW ALTER TABLE ROLLUP job states); load_p0/stream_load/
// test_csv_with_double_quotes (its .out and data file are of different
// commits: the .out's first case has 8 rows where the data file has 9).

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// delete_p0/test_zone_map_delete.groovy: DELETE on a value column of a
// DUPLICATE KEY table with >, IN and IS NOT NULL conditions, each on a fresh
// table of 30 rows (6 of each value).
//
// Adapted: the .out at the commit named in its header holds the suite's
// first three cases only; the later cases of the suite (NOT IN, the
// AGGREGATE table with LARGEINT keys, the page-skipping profile check) have
// no expected rows there and are not replayed.
func TestE2EDorisRegressionZoneMapDelete(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, root, "CREATE DATABASE regression_delete")
	db := openDB(t, s.MySQLAddr(), "regression_delete", true)
	out := readDorisOut(t, "test_zone_map_delete.out")
	const tbl = "test_zone_map_delete_tbl"
	for k, del := range []string{
		"delete from " + tbl + " where v1 > 3;",
		"delete from " + tbl + " where v1 in (3);",
		"delete from " + tbl + " where v1 IS NOT NULL;",
	} {
		execAll(t, db,
			"DROP TABLE IF EXISTS "+tbl,
			"CREATE TABLE IF NOT EXISTS "+tbl+" (   `k1` int(11) NULL,   `k2` int(11) NULL,   `v1` int(11) NULL )DUPLICATE KEY(`k1`,k2) DISTRIBUTED BY HASH(`k1`) BUCKETS 1 PROPERTIES(\"replication_num\" = \"1\");",
			"insert into "+tbl+" values(1,1,1), (2,2,2),(3,3,3),(4,4,4),(5,5,5),(1,1,1), (2,2,2),(3,3,3),(4,4,4),(5,5,5),(1,1,1), (2,2,2),(3,3,3),(4,4,4),(5,5,5),(1,1,1), (2,2,2),(3,3,3),(4,4,4),(5,5,5),(1,1,1), (2,2,2),(3,3,3),(4,4,4),(5,5,5),(1,1,1), (2,2,2),(3,3,3),(4,4,4),(5,5,5);",
			del)
		runDorisCases(t, db, out, []dorisCase{{name: "sql", k: k, query: "select * from " + tbl + " ORDER BY k1;"}})
	}
	mustExec(t, db, "DROP TABLE IF EXISTS "+tbl)
}

// delete_p0/test_multi_columns_delete.groovy: a DELETE conditioned on a key
// and a value column of a DUPLICATE KEY table leaves the other rows.
func TestE2EDorisRegressionMultiColumnsDelete(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, root, "CREATE DATABASE regression_delete")
	db := openDB(t, s.MySQLAddr(), "regression_delete", true)
	out := readDorisOut(t, "test_multi_columns_delete.out")
	const tbl = "test_multi_columns_delete"
	execAll(t, db,
		"DROP TABLE IF EXISTS "+tbl+";",
		"CREATE TABLE IF NOT EXISTS "+tbl+` ( id INT NULL COMMENT "",name VARCHAR(500) NULL COMMENT "",gender VARCHAR(500) NULL COMMENT "",remark VARCHAR(500) NULL COMMENT "" ) ENGINE=OLAP DUPLICATE KEY(id, name) DISTRIBUTED BY HASH(id, name) BUCKETS 4 PROPERTIES ( "replication_num" = "1");`,
		"INSERT INTO "+tbl+` VALUES (1125,'mus','f','xDavis'),(1338,'mos','f','kDiaz'),(1443,'mus','f','enim_unde_quae'),(1564,'mos','f','quasi'),(1745,'mus','m','sit_et_quidem'),(1898,'mos','m','est_sit'),(2256,'mus','f','SusanHolmes'),(2316,'mus','f','jSpencer'),(2448,'mus','f','impedit_exercitationem_nobis'),(2493,'mus','f','aut_id'),(2768,'mos','f','dolor_neque'),(2813,'mos','f','SeanHill'),(2834,'mus','f','xMorrison'),(2894,'mos','m','incidunt'),(2933,'mos','m','CharlesFisher'),(2978,'mus','m','fTaylor'),(3017,'mos','m','RaymondCruz'),(3059,'mos','m','autem'),(3366,'mus','m','doloremque_vel'),(3433,'mus','m','odio_voluptatem'),(3878,'mos','m','ut_animi_necessitatibus'),(3986,'mus','m','ut'),(4510,'mos','m','NicoleBarnes'),(4551,'mos','f','libero_maxime'),(1225,'mus','m','ArthurBarnes'),(1412,'mus','f','JessicaWoods'),(1413,'mus','m','NancyCarroll'),(1496,'mos','m','RalphHicks'),(1515,'mus','m','et'),(1706,'mos','f','JesseBryant'),(1736,'mos','f','PhilipChavez'),(1951,'mos','f','aWilson'),(2290,'mos','m','JamesHernandez'),(2398,'mus','m','provident_consequuntur'),(2618,'mus','f','quas_expedita_nulla'),(2726,'mus','m','PatrickJackson'),(2778,'mos','f','oAndrews'),(2911,'mos','f','dolore'),(2962,'mus','f','4Stevens'),(3280,'mus','m','quaerat'),(3383,'mus','m','qui_molestiae_consequatur'),(3438,'mus','f','odio_eos'),(3724,'mus','f','voluptatem_non_eum'),(3979,'mos','f','ToddRomero'),(4016,'mos','f','gBlack'),(4029,'mos','m','uWright'),(4138,'mos','f','MariaPatterson'),(4214,'mus','f','ipsa'),(4265,'mus','f','EvelynWebb'),(4379,'mus','f','hWheeler'),(4436,'mus','m','aNelson'),(1315,'mos','m','doloribus'),(1995,'mus','m','rerum'),(2093,'mus','m','PeterFuller'),(2151,'mos','f','qGarrett'),(2271,'mus','f','cEvans'),(2422,'mus','f','MargaretHunt'),(2691,'mus','m','0Alexander'),(2917,'mus','m','id'),(2920,'mus','f','eos_voluptas_minima'),(3037,'mos','f','gFowler'),(3074,'mos','m','1Stanley'),(3159,'mos','f','aut'),(3340,'mos','f','KarenFuller'),(3564,'mus','f','cum_maiores'),(3623,'mos','f','CynthiaGarrett'),(3895,'mus','m','bWatkins'),(3992,'mos','f','hJames'),(4055,'mos','f','RogerThomas'),(4291,'mus','f','FredJohnson'),(4326,'mos','f','AndrewRodriguez'),(1302,'mus','f','sed_qui_aut'),(1312,'mus','f','qBoyd'),(1418,'mus','m','KeithRogers'),(1553,'mus','f','molestiae'),(1596,'mus','f','KennethJohnston'),(1618,'mus','m','veniam_rem'),(1822,'mus','f','5Fernandez'),(1916,'mus','f','uDiaz'),(2194,'mos','m','tHayes'),(2334,'mus','f','GregorySchmidt'),(2363,'mos','f','itaque_minima_placeat'),(2370,'mos','m','et_velit_in'),(2589,'mos','f','CherylBailey'),(2606,'mus','f','SaraBerry'),(2650,'mus','f','VirginiaVasquez'),(2883,'mus','m','quia_quae_repudiandae'),(2904,'mus','f','TerryRivera'),(3338,'mos','m','VictorOlson'),(3393,'mus','m','itaque_eum'),(3602,'mus','f','wWells'),(3635,'mus','m','mPorter'),(3697,'mus','m','CharlesRobinson'),(3936,'mos','f','facere_corrupti_velit'),(4158,'mos','f','in_nostrum'),(4212,'mus','m','JonathanStanley'),(4231,'mus','f','lSchmidt'),(4259,'mos','f','voluptas_culpa'),(4492,'mos','f','excepturi_eum'),(4555,'mus','f','9Powell');`,
		"DELETE FROM "+tbl+" WHERE name = 'mos' AND gender = 'm';")
	runDorisCases(t, db, out, []dorisCase{{name: "sql", query: "SELECT * FROM " + tbl + " WHERE name = 'mus' AND id = 1302;"}})
}

// schema_change_p0/test_add_rename_column.groovy: ADD COLUMN then RENAME
// COLUMN on a UNIQUE KEY table, TRUNCATE, and an INSERT that fills the
// renamed column.
func TestE2EDorisRegressionAddRenameColumn(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, root, "CREATE DATABASE regression_schema_change")
	db := openDB(t, s.MySQLAddr(), "regression_schema_change", true)
	out := readDorisOut(t, "test_add_rename_column.out")
	const tbl = "test_add_rename"
	execAll(t, db,
		"DROP TABLE IF EXISTS "+tbl,
		"create table "+tbl+`(
            id int,
            name varchar(100)
        ) ENGINE = olap
        unique key(id)
        distributed by hash(id) buckets 1
        properties (
            'replication_num' = 1
        )`,
		"insert into "+tbl+" values (2, 'bb')",
		"ALTER TABLE "+tbl+" add column c3 varchar(10)",
		"ALTER TABLE "+tbl+" rename column c3 c4",
		"truncate table "+tbl)
	// Doris's qt_ queries here have no ORDER BY; runDorisCases compares
	// them as sets.
	runDorisCases(t, db, out, []dorisCase{{name: "sql", query: "select * from " + tbl}})
	mustExec(t, db, "insert into "+tbl+" values (3, 'cc', 'dd')")
	runDorisCases(t, db, out, []dorisCase{{name: "sql", k: 1, query: "select * from " + tbl}})
}

// schema_change_p0/test_alter_table_add_columns.groovy: ADD COLUMN of two
// MAX value columns with defaults on an AGGREGATE KEY table: rows loaded
// before read the defaults, rows loaded after their own values; then ADD
// COLUMN (new_k1 INT, new_k2 INT) without an aggregation type, two key
// columns: a heavy schema change job the suite waits for in SHOW ALTER
// TABLE COLUMN (as its waitForSchemaChangeDone does), DESC and the rows
// after it. DESC is compared as Doris spells it (Yes/No), from dorisgo's
// MySQL-style YES/NO.
func TestE2EDorisRegressionAlterTableAddColumns(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, root, "CREATE DATABASE regression_schema_change")
	db := openDB(t, s.MySQLAddr(), "regression_schema_change", true)
	out := readDorisOut(t, "test_alter_table_add_columns.out")
	const tbl = "test_alter_table_add_columns"
	sel := "select * from " + tbl + " order by siteid"
	execAll(t, db,
		"DROP TABLE IF EXISTS "+tbl+" FORCE",
		"CREATE TABLE `"+tbl+"`"+`
        (
            `+"`siteid`"+` INT DEFAULT '10',
            `+"`citycode`"+` SMALLINT,
            `+"`username`"+` VARCHAR(32) DEFAULT 'test',
            `+"`pv`"+` BIGINT SUM DEFAULT '0'
        )
        AGGREGATE KEY(`+"`siteid`, `citycode`, `username`"+`)
        DISTRIBUTED BY HASH(siteid) BUCKETS 1
        PROPERTIES (
            "replication_num" = "1"
        );`,
		"INSERT INTO "+tbl+` VALUES
            (1, 1, "xxx", 1),
            (2, 2, "xxx", 2),
            (3, 3, "xxx", 3);`)
	runDorisCases(t, db, out, []dorisCase{{name: "order", query: sel}})
	mustExec(t, db, "alter table "+tbl+` ADD COLUMN (new_v1 INT MAX default "1" , new_v2 INT MAX default "2");`)
	runDorisCases(t, db, out, []dorisCase{{name: "order", k: 1, query: sel}})
	mustExec(t, db, "INSERT INTO "+tbl+` VALUES
            (4, 4, "yyy", 4, 4, 4),
            (5, 5, "yyy", 5, 5, 5),
            (6, 6, "yyy", 6, 6, 6);`)
	runDorisCases(t, db, out, []dorisCase{{name: "order", k: 2, query: sel}})
	mustExec(t, db, "alter table "+tbl+" ADD COLUMN (new_k1 INT DEFAULT '1', new_k2 INT DEFAULT '2');")
	waitFor(t, 60*time.Second, "waitForSchemaChangeDone", func() bool {
		rows := queryStrings(t, db, "SHOW ALTER TABLE COLUMN WHERE TableName='"+tbl+"' ORDER BY createtime DESC LIMIT 1")
		return len(rows) == 1 && rows[0][9] == "FINISHED"
	})
	var desc []string
	for _, r := range queryStrings(t, db, "DESC "+tbl) {
		null := map[string]string{"YES": "Yes", "NO": "No"}[r[2]]
		def := r[4]
		if def == "NULL" {
			def = `\N`
		}
		desc = append(desc, strings.Join([]string{r[0], r[1], null, r[3], def, r[5]}, "\t"))
	}
	if want := out.expected(t, "sql", 0); strings.Join(desc, "\n") != strings.Join(want, "\n") {
		t.Errorf("DESC after the key columns:\n--- got:\n%s\n--- want (Doris .out):\n%s", strings.Join(desc, "\n"), strings.Join(want, "\n"))
	}
	mustExec(t, db, "INSERT INTO "+tbl+` VALUES
            (7, 7, "zzz", 7, 7, 7, 7, 7),
            (8, 8, "zzz", 8, 8, 8, 8, 8),
            (9, 9, "zzz", 9, 9, 9, 9, 9);`)
	runDorisCases(t, db, out, []dorisCase{{name: "order", k: 3, query: sel}})
}

// readDorisData returns a data file copied from Doris's regression suite,
// without the # header lines this repository adds.
func readDorisData(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "doris_regression", name))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range strings.SplitAfter(string(raw), "\n") {
		if !strings.HasPrefix(l, "#") {
			b.WriteString(l)
		}
	}
	return []byte(b.String())
}

// load_p0/stream_load/load_json_null_to_nullable.groovy: a JSON array
// (strip_outer_array) into CHAR (one character) columns with
// max_filter_ratio 1: values longer than a CHAR(1) are filtered, "" and
// null load as "" and NULL.
//
// Adapted: the suite's two cases differ only in SET enable_vectorized_engine
// (true, then false), a no-op in Doris 2.x; both are replayed as they stand.
func TestE2EDorisRegressionLoadJSONNullToNullable(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, root, "CREATE DATABASE test_query_db")
	db := openDB(t, s.MySQLAddr(), "test_query_db", true)
	out := readDorisOut(t, "load_json_null_to_nullable.out")
	data := readDorisData(t, "test_char.json")
	const tbl = "tbl_test_json_load"
	for k := 0; k < 2; k++ {
		execAll(t, db,
			"DROP TABLE IF EXISTS "+tbl,
			"CREATE TABLE IF NOT EXISTS "+tbl+` (
              `+"`k1`"+` CHAR NULL COMMENT "",
              `+"`v1`"+` CHAR NULL COMMENT ""
            ) ENGINE=OLAP
            DUPLICATE KEY(`+"`k1`"+`)
            DISTRIBUTED BY HASH(`+"`k1`"+`) BUCKETS 1
            PROPERTIES (
            "replication_num" = "1"
            )`)
		r := mustStreamLoad(t, s.HTTPAddr(), "test_query_db", tbl, map[string]string{
			"strip_outer_array": "true",
			"format":            "json",
			"max_filter_ratio":  "1",
		}, data)
		// The suite's check callback.
		if r.NumberTotalRows != r.NumberLoadedRows+r.NumberUnselectedRows+r.NumberFilteredRows || r.NumberLoadedRows <= 0 {
			t.Errorf("stream load reply %+v: want NumberTotalRows = loaded + unselected + filtered, and rows loaded", r)
		}
		runDorisCases(t, db, out, []dorisCase{{name: "select", k: k, query: "select * from " + tbl + " order by k1"}})
		mustExec(t, db, "DROP TABLE IF EXISTS "+tbl)
	}
}
