//! Every JSON document the tool writes has a JSON Schema (draft 2020-12)
//! under docs/schema/, checked here with a maintained validator (the
//! `jsonschema` crate):
//!
//! * real outputs of every report kind, under every flag that changes its
//!   shape, and the files of a `perft split` job (manifest, unit and result
//!   lines), validate against their schema;
//! * every subcommand that accepts `--json` (read from the clap definitions)
//!   has a schema and an example, and every schema is a report kind or a
//!   job file;
//! * the schemas are strict (`additionalProperties: false`, every property
//!   required but the `--stats` breakdown), and the examples in
//!   docs/schema/examples/ validate, and stop validating when any field is
//!   added or removed.
//!
//! With `PERFT_SCHEMA_DUMP=DIR` set, every output validated here is also
//! written to DIR, for an independent check with
//! `python3 scripts/validate_json.py DIR`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use clap::CommandFactory;
use serde_json::Value;

use crate::common::{broken_engine, perft_bin, repo_path, run_perft, stderr, write_temp};

/// The draft every schema declares.
const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";

/// Schemas of the files in a job directory (no subcommand prints them).
const JOB_FILE_SCHEMAS: [&str; 3] = ["manifest", "unit-line", "result-line"];

/// Report kinds a flag of a subcommand writes instead of the subcommand's
/// own: (schema name, subcommand).
const FLAG_KINDS: [(&str, &str); 1] = [("search-bench", "search")];

/// The one property a report may leave out: the `--stats` breakdown.
const OPTIONAL: &str = "stats";

fn schema_dir() -> PathBuf {
    repo_path("docs/schema")
}

fn examples_dir() -> PathBuf {
    repo_path("docs/schema/examples")
}

/// Every `NAME.schema.json` in docs/schema/, parsed, by NAME.
fn schema_files() -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(schema_dir()).expect("docs/schema/") {
        let path = entry.unwrap().path();
        let file = path.file_name().unwrap().to_str().unwrap().to_string();
        if let Some(name) = file.strip_suffix(".schema.json") {
            let text = std::fs::read_to_string(&path).unwrap();
            let schema: Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()));
            out.insert(name.to_string(), schema);
        }
    }
    out
}

/// Compiled validators (draft 2020-12), by schema name.
fn validators() -> &'static BTreeMap<String, jsonschema::Validator> {
    static V: OnceLock<BTreeMap<String, jsonschema::Validator>> = OnceLock::new();
    V.get_or_init(|| {
        schema_files()
            .into_iter()
            .map(|(name, schema)| {
                let v = jsonschema::draft202012::new(&schema)
                    .unwrap_or_else(|e| panic!("{name}.schema.json does not compile: {e}"));
                (name, v)
            })
            .collect()
    })
}

/// The errors of `doc` against schema `name`, each with its JSON pointer.
fn errors(doc: &Value, name: &str) -> Vec<String> {
    let v = validators()
        .get(name)
        .unwrap_or_else(|| panic!("no docs/schema/{name}.schema.json"));
    v.iter_errors(doc)
        .map(|e| format!("at '{}': {e}", e.instance_path()))
        .collect()
}

pub fn assert_valid(doc: &Value, name: &str, what: &str) {
    let errs = errors(doc, name);
    assert!(
        errs.is_empty(),
        "{what} is invalid against {name}.schema.json:\n{}",
        errs.join("\n")
    );
}

/// With PERFT_SCHEMA_DUMP=DIR, copies `path` (a file or a job directory)
/// into DIR as `label` (plus its extension).
fn dump_path(label: &str, path: &Path) {
    let Some(dir) = std::env::var_os("PERFT_SCHEMA_DUMP") else {
        return;
    };
    let dir = PathBuf::from(dir);
    if path.is_dir() {
        let to = dir.join(label);
        std::fs::create_dir_all(&to).unwrap();
        for e in std::fs::read_dir(path).unwrap() {
            let p = e.unwrap().path();
            std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
        }
    } else {
        std::fs::create_dir_all(&dir).unwrap();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("json");
        std::fs::copy(path, dir.join(format!("{label}.{ext}"))).unwrap();
    }
}

/// With PERFT_SCHEMA_DUMP=DIR, writes a report to DIR/<label>.json.
fn dump_text(label: &str, text: &[u8]) {
    if let Some(dir) = std::env::var_os("PERFT_SCHEMA_DUMP") {
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{label}.json")), text).unwrap();
    }
}

/// A file name for a command line: its words (paths by their last
/// component), joined by `_`.
fn label(args: &[&str]) -> String {
    let words: Vec<String> = args
        .iter()
        .map(|a| {
            let a = Path::new(a)
                .file_name()
                .and_then(|f| f.to_str())
                .unwrap_or(a);
            a.chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                .collect()
        })
        .collect();
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{n:03}-{}", words.join("_"))
}

/// Runs `perft ARGS`, checks its exit code is one of `codes`, parses stdout
/// as one JSON document and validates it against `schema`.
fn report(args: &[&str], codes: &[i32], schema: &str) -> Value {
    checked(args, run_perft(args), codes, schema)
}

/// `perft ARGS` stopped by SIGINT after 1.5 s, as Ctrl-C would
/// (`timeout --foreground`: one signal, to perft only): exit 130 and a
/// partial report, validated against `schema`.
fn interrupted(args: &[&str], schema: &str) -> Value {
    let out = std::process::Command::new("timeout")
        .args(["--foreground", "--preserve-status", "-s", "INT", "1.5"])
        .arg(perft_bin())
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run `timeout` (coreutils)");
    checked(args, out, &[130], schema)
}

fn checked(args: &[&str], out: Output, codes: &[i32], schema: &str) -> Value {
    let code = out.status.code().unwrap_or(-1);
    assert!(
        codes.contains(&code),
        "perft {args:?}: exit {code}, expected one of {codes:?}\nstderr: {}",
        stderr(&out)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "perft {args:?}: stdout is not one JSON document ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    dump_text(&label(args), &out.stdout);
    assert_valid(&doc, schema, &format!("`perft {}`", args.join(" ")));
    doc
}

fn warning_kinds(doc: &Value) -> Vec<&str> {
    doc["warnings"]
        .as_array()
        .expect("warnings array")
        .iter()
        .map(|w| w["kind"].as_str().unwrap())
        .collect()
}

// ---------------------------------------------------------------------------
// The schemas themselves.

/// Every object subschema (`"type": "object"`) of `schema`, with its path.
fn object_schemas<'a>(schema: &'a Value, path: String, out: &mut Vec<(String, &'a Value)>) {
    match schema {
        Value::Object(map) => {
            let is_object = match map.get("type") {
                Some(Value::String(t)) => t == "object",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
                _ => false,
            };
            if is_object {
                out.push((path.clone(), schema));
            }
            for (k, v) in map {
                object_schemas(v, format!("{path}/{k}"), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                object_schemas(v, format!("{path}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_schema_is_draft_2020_12_and_strict() {
    let files = schema_files();
    assert!(files.len() >= 11, "schemas found: {:?}", files.keys());
    for (name, schema) in &files {
        assert_eq!(
            schema["$schema"], DRAFT,
            "{name}.schema.json must declare $schema {DRAFT}"
        );
        if let Err(e) = jsonschema::meta::validate(schema) {
            panic!("{name}.schema.json is not a valid 2020-12 schema: {e}");
        }
        let mut objects = Vec::new();
        object_schemas(schema, String::new(), &mut objects);
        assert!(!objects.is_empty(), "{name}: no object schema");
        for (path, o) in objects {
            let at = format!("{name}.schema.json#{path}");
            assert_eq!(
                o["additionalProperties"],
                Value::Bool(false),
                "{at}: an object schema must forbid undeclared fields (additionalProperties: false)"
            );
            let props: Vec<&String> = o["properties"]
                .as_object()
                .unwrap_or_else(|| panic!("{at}: an object schema without properties"))
                .keys()
                .collect();
            let required: Vec<&str> = o["required"]
                .as_array()
                .unwrap_or_else(|| panic!("{at}: no required list"))
                .iter()
                .map(|r| r.as_str().unwrap())
                .collect();
            for p in props {
                // The JSON writer gives integers their `X_str` twin, so the
                // twin of a field that may be null is absent exactly then.
                let nullable_twin = p.strip_suffix("_str").is_some_and(|base| {
                    o["properties"][base]["type"]
                        .as_array()
                        .is_some_and(|t| t.iter().any(|t| t == "null"))
                });
                assert!(
                    required.contains(&p.as_str()) || p == OPTIONAL || nullable_twin,
                    "{at}: property {p} is not required (only `{OPTIONAL}` and the `_str` twin of a nullable field may be left out)"
                );
            }
        }
    }
}

/// The subcommands that accept `--json`, from the clap definitions.
fn json_subcommands() -> Vec<String> {
    perft::cli::Cli::command()
        .get_subcommands()
        .filter(|s| s.get_arguments().any(|a| a.get_long() == Some("json")))
        .map(|s| s.get_name().to_string())
        .collect()
}

#[test]
fn every_json_subcommand_has_a_schema_and_an_example() {
    let commands = json_subcommands();
    // The enumeration itself works: the commands known to print JSON are found.
    for known in [
        "count", "divide", "suite", "search", "compare", "fuzz", "bench", "merge",
    ] {
        assert!(
            commands.iter().any(|c| c == known),
            "{known} not found among {commands:?}"
        );
    }
    let files = schema_files();
    for c in &commands {
        let schema = files
            .get(c.as_str())
            .unwrap_or_else(|| panic!("`perft {c} --json` has no docs/schema/{c}.schema.json"));
        assert_eq!(
            schema["properties"]["kind"]["const"],
            c.as_str(),
            "{c}.schema.json: kind"
        );
        assert!(
            examples_dir().join(format!("{c}.json")).is_file(),
            "`perft {c} --json` has no docs/schema/examples/{c}.json"
        );
    }
    // And no schema is left over from a command that is gone.
    for name in files.keys() {
        assert!(
            commands.contains(name)
                || JOB_FILE_SCHEMAS.contains(&name.as_str())
                || FLAG_KINDS
                    .iter()
                    .any(|&(kind, command)| kind == name && commands.iter().any(|c| c == command)),
            "{name}.schema.json belongs to no subcommand with --json and to no job file"
        );
    }
    // docs/json.md links each schema.
    let doc = std::fs::read_to_string(repo_path("docs/json.md")).unwrap();
    for name in files.keys() {
        assert!(
            doc.contains(&format!("(schema/{name}.schema.json)")),
            "docs/json.md does not link schema/{name}.schema.json"
        );
    }
}

/// The documents of an example file: one for `.json`, one a line for `.jsonl`.
fn example_documents(name: &str) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for ext in ["json", "jsonl"] {
        let path = examples_dir().join(format!("{name}.{ext}"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        if ext == "json" {
            let doc = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{}: not one JSON document: {e}", path.display()));
            out.push((path.display().to_string(), doc));
        } else {
            for (i, line) in text.lines().enumerate() {
                let doc = serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("{}:{}: not JSON: {e}", path.display(), i + 1));
                out.push((format!("{}:{}", path.display(), i + 1), doc));
            }
        }
    }
    out
}

/// JSON pointers of every object in `doc` (of arrays, the first element only).
fn object_pointers(doc: &Value, path: String, out: &mut Vec<String>) {
    match doc {
        Value::Object(map) => {
            out.push(path.clone());
            for (k, v) in map {
                object_pointers(v, format!("{path}/{k}"), out);
            }
        }
        Value::Array(items) => {
            if let Some(first) = items.first() {
                object_pointers(first, format!("{path}/0"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn examples_validate_and_any_added_or_removed_field_fails() {
    for name in schema_files().keys() {
        let docs = example_documents(name);
        assert!(
            !docs.is_empty(),
            "no docs/schema/examples/{name}.json or .jsonl"
        );
        for (what, doc) in &docs {
            assert_valid(doc, name, what);
            let mut pointers = Vec::new();
            object_pointers(doc, String::new(), &mut pointers);
            for p in &pointers {
                // An undeclared field anywhere is an error...
                let mut added = doc.clone();
                added
                    .pointer_mut(p)
                    .unwrap()
                    .as_object_mut()
                    .unwrap()
                    .insert("undeclared_field".into(), Value::Bool(true));
                assert!(
                    !errors(&added, name).is_empty(),
                    "{what}: a field added at '{p}' still validates against {name}.schema.json"
                );
                // ... and so is a missing one (but the --stats breakdown).
                let keys: Vec<String> = doc
                    .pointer(p)
                    .unwrap()
                    .as_object()
                    .unwrap()
                    .keys()
                    .cloned()
                    .collect();
                for k in keys {
                    if k == OPTIONAL && doc.pointer(p).unwrap()[&k].is_object() {
                        continue;
                    }
                    let mut removed = doc.clone();
                    removed
                        .pointer_mut(p)
                        .unwrap()
                        .as_object_mut()
                        .unwrap()
                        .remove(&k);
                    assert!(
                        !errors(&removed, name).is_empty(),
                        "{what}: '{p}/{k}' removed still validates against {name}.schema.json"
                    );
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Real outputs.

#[test]
fn count_reports_validate_under_every_shape() {
    // The leaf breakdown (the schema lacked it once).
    let d = report(
        &["count", "3", "kiwipete", "--stats", "--json"],
        &[0],
        "count",
    );
    assert!(d["stats"].is_object() && d["table_used"] == false);
    let d = report(
        &[
            "count",
            "5",
            "--hash",
            "8MiB",
            "--hash-sync",
            "striped:4",
            "--json",
        ],
        &[0],
        "count",
    );
    assert_eq!(d["engine"]["hash_sync"], "striped:4");
    let d = report(&["count", "4", "--plain", "--json"], &[0], "count");
    assert_eq!(d["engine"]["counter"], "plain");
    assert!(d.get("stats").is_none());
    let d = report(
        &["count", "4", "kiwipete", "--no-hash", "--json"],
        &[0],
        "count",
    );
    assert!(d["table"].is_null() && d["engine"]["hash_sync"].is_null());
    // --verify-table with a table (a second run), and without (nothing to verify).
    let d = report(
        &[
            "count",
            "5",
            "kiwipete",
            "--hash",
            "1MiB",
            "--threads",
            "1",
            "--verify-table",
            "--json",
        ],
        &[0, 1],
        "count",
    );
    assert!(d["table_check"].is_object() && d["table"].is_object());
    let d = report(&["count", "2", "--verify-table", "--json"], &[0], "count");
    assert!(d["table_check"].is_null());
    assert!(warning_kinds(&d).contains(&"nothing_to_verify"));
    // Stopped by --max-time: partial, with the partial and long-run warnings.
    let d = report(
        &[
            "count",
            "12",
            "--no-hash",
            "--threads",
            "1",
            "--max-time",
            "0.2",
            "--json",
        ],
        &[124],
        "count",
    );
    assert_eq!(d["complete"], false);
    assert_eq!(d["stopped_by"], "max_time");
    let w = warning_kinds(&d);
    assert!(w.contains(&"partial") && w.contains(&"long_run"), "{w:?}");
    // More threads than CPUs; game-impossible positions.
    let d = report(&["count", "2", "--threads", "256", "--json"], &[0], "count");
    assert!(warning_kinds(&d).contains(&"threads_above_cpus"));
    for (fen, kind) in [
        (
            "4k3/8/8/8/1b6/8/2n1r3/4K3 w - - 0 1",
            "three_or_more_checkers",
        ),
        ("4k3/8/8/8/8/8/8/r3K2r w - - 0 1", "aligned_checkers"),
        (
            "k3r3/8/8/2pP4/8/8/8/4K3 w - c6 0 1",
            "check_contradicts_en_passant",
        ),
    ] {
        let d = report(&["count", "2", fen, "--json"], &[0], "count");
        assert!(warning_kinds(&d).contains(&kind), "{fen}");
    }
}

#[test]
fn divide_reports_validate_under_every_shape() {
    let d = report(
        &["divide", "3", "kiwipete", "--stats", "--json"],
        &[0],
        "divide",
    );
    assert!(d["stats"].is_object() && d["moves"][0]["stats"].is_object());
    // Chess960 castling notation (published: D2 528).
    let d = report(
        &[
            "divide",
            "2",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "--chess960",
            "--json",
        ],
        &[0],
        "divide",
    );
    assert_eq!(d["nodes"], 528);
    let d = report(
        &["divide", "2", "cpw4", "--plain", "--json"],
        &[0],
        "divide",
    );
    assert_eq!(d["engine"]["counter"], "plain");
    let d = report(
        &["divide", "2", "cpw4", "--stats", "--json"],
        &[0],
        "divide",
    );
    assert!(d["moves"][0]["stats"].is_object());
    let d = report(
        &["divide", "3", "cpw4", "--no-hash", "--json"],
        &[0],
        "divide",
    );
    assert!(d["engine"]["hash_sync"].is_null());
    let d = report(
        &[
            "divide",
            "4",
            "kiwipete",
            "--hash",
            "1MiB",
            "--threads",
            "1",
            "--verify-table",
            "--json",
        ],
        &[0, 1],
        "divide",
    );
    assert!(d["table_check"].is_object());
    let d = report(
        &[
            "divide",
            "8",
            "--no-hash",
            "--threads",
            "1",
            "--max-time",
            "0.2",
            "--json",
        ],
        &[124],
        "divide",
    );
    assert_eq!(d["complete"], false);
    assert!(warning_kinds(&d).contains(&"partial"));
    let d = report(
        &["divide", "2", "4k3/8/8/8/8/8/8/r3K2r w - - 0 1", "--json"],
        &[0],
        "divide",
    );
    assert!(warning_kinds(&d).contains(&"aligned_checkers"));
}

#[test]
fn suite_reports_validate_under_every_shape() {
    let standard = repo_path("positions/standard.epd");
    let standard = standard.to_str().unwrap();
    // A wrong count, a line without counts, a wrong statistics figure.
    let wrong = write_temp(
        "schema-wrong.epd",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 401\n\
         8/8/8/8/8/8/8/K6k w - - 0 1 ;id \"no counts\"\n\
         rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D3 8902 ;D3cap 35\n",
    );
    let wrong = wrong.to_str().unwrap();
    let d = report(&["suite", wrong, "--json"], &[1], "suite");
    let statuses: Vec<&str> = d["positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["status"].as_str().unwrap())
        .collect();
    assert!(
        statuses.contains(&"fail") && statuses.contains(&"no_counts"),
        "{statuses:?}"
    );
    let d = report(&["suite", wrong, "--stats", "--json"], &[1], "suite");
    assert!(d["summary"]["stats_failed"].as_u64().unwrap() > 0);
    let d = report(&["suite", wrong, "--fail-fast", "--json"], &[1], "suite");
    assert!(d["summary"]["positions_not_run"].as_u64().unwrap() > 0);
    // Limits: nodes (skipped depths), statistics checked, time.
    let d = report(
        &[
            "suite",
            standard,
            "--max-nodes",
            "100000",
            "--stats",
            "--json",
        ],
        &[0],
        "suite",
    );
    assert!(d["summary"]["stats_checked"].as_u64().unwrap() > 0);
    let d = report(
        &[
            "suite",
            standard,
            "--max-time",
            "0.3",
            "--threads",
            "1",
            "--json",
        ],
        &[124],
        "suite",
    );
    assert_eq!(d["stopped_by"], "max_time");
    // A timeout: depth 7 of the first line (3,195,901,860 leaves, seconds
    // of work) cannot end within 0.02 s however late the watcher wakes;
    // depth 6 (about 0.04 s on one thread) did once, on a loaded CI run.
    let d = report(
        &[
            "suite",
            standard,
            "--max-depth",
            "7",
            "--timeout",
            "0.02",
            "--threads",
            "1",
            "--json",
        ],
        &[0, 2],
        "suite",
    );
    assert!(d["positions"][0]["stopped_at_depth"].is_u64());
    // An engine that fails: the bisection object.
    let ep = format!("{} --drop ep", broken_engine());
    let d = report(
        &[
            "suite",
            standard,
            "--max-nodes",
            "100000",
            "--engine",
            &ep,
            "--json",
        ],
        &[1],
        "suite",
    );
    assert!(
        d["positions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["bisection"].is_object()),
        "no bisection"
    );
}

#[test]
fn bench_reports_validate_under_every_shape() {
    let d = report(
        &["bench", "--max-depth", "3", "--stats", "--json"],
        &[0],
        "bench",
    );
    assert!(d["runs"][0]["positions"][6]["stats"].is_object());
    let d = report(
        &["bench", "--max-depth", "2", "--threads", "1,2", "--json"],
        &[0],
        "bench",
    );
    assert_eq!(d["runs"].as_array().unwrap().len(), 2);
    let d = report(
        &[
            "bench",
            "--max-depth",
            "2",
            "--plain",
            "--no-hash",
            "--json",
        ],
        &[0],
        "bench",
    );
    assert_eq!(d["runs"][0]["counter"], "plain");
    // The ceiling, on a run without a table; none on a run with one.
    let d = report(
        &[
            "bench",
            "--max-depth",
            "3",
            "--threads",
            "1,2",
            "--hash",
            "none,1MiB",
            "--ceiling",
            "--json",
        ],
        &[0],
        "bench",
    );
    let runs = d["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4);
    for run in runs {
        let with_table = run["hash"] != "none";
        assert_eq!(run["ceiling"].is_object(), !with_table, "{run}");
        assert_eq!(run["table"].is_object(), with_table, "{run}");
    }
    assert_eq!(runs[2]["ceiling"]["counters"], 2);
}

/// Every report of a run with a perft table gives the table's set-up, the
/// time spent before the count making it ready, beside the count's own time.
#[test]
fn every_report_with_a_table_gives_its_set_up() {
    fn check_setup(table: &Value, what: &str) {
        let seconds = table["setup_seconds"].as_f64();
        assert!(seconds.is_some_and(|s| s >= 0.0), "{what}: {table}");
        assert!(
            table["setup_threads"].as_u64().is_some_and(|t| t >= 1),
            "{what}: {table}"
        );
        assert_eq!(table["hash_bytes"], 2 << 20, "{what}");
        assert_eq!(table["hash_sync"], "striped:1024", "{what}");
    }
    let table = ["--hash", "2MiB", "--hash-sync", "striped", "--json"];
    fn with<'a>(args: &[&'a str], table: &[&'a str]) -> Vec<&'a str> {
        [args, table].concat()
    }
    let d = report(&with(&["count", "4", "kiwipete"], &table), &[0], "count");
    check_setup(&d["table"], "count");
    assert!(d["wall_seconds"].as_f64().unwrap() >= d["seconds"].as_f64().unwrap());
    let d = report(&with(&["divide", "3", "cpw4"], &table), &[0], "divide");
    check_setup(&d["table"], "divide");
    let d = report(&with(&["bench", "--max-depth", "3"], &table), &[0], "bench");
    check_setup(&d["runs"][0]["table"], "bench");
    let standard = repo_path("positions/standard.epd");
    let standard = standard.to_str().unwrap();
    let d = report(
        &with(&["suite", standard, "--max-nodes", "100000"], &table),
        &[0],
        "suite",
    );
    check_setup(&d["table"], "suite");
    // And none without a table.
    let d = report(&["count", "3", "--no-hash", "--json"], &[0], "count");
    assert!(d["table"].is_null());
}

#[test]
fn search_reports_validate_under_every_shape() {
    let d = report(
        &["search", "kiwipete", "--depth", "3", "--json"],
        &[0],
        "search",
    );
    assert!(d["tt"].is_object() && d["score"]["cp"].is_i64());
    let d = report(
        &[
            "search",
            "kiwipete",
            "--depth",
            "3",
            "--no-tt",
            "--aspiration",
            "1",
            "--json",
        ],
        &[0],
        "search",
    );
    assert!(d["tt"].is_null());
    let d = report(
        &[
            "search",
            "cpw3",
            "--moves",
            "b4b1",
            "--movetime",
            "100",
            "--json",
        ],
        &[0],
        "search",
    );
    assert_eq!(d["movetime_ms"], 100);
    let d = report(
        &["search", "kiwipete", "--nodes", "2000", "--json"],
        &[0],
        "search",
    );
    assert_eq!(d["stopped"], true);
    // A mate, and a position already checkmated.
    let d = report(
        &[
            "search",
            "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
            "--depth",
            "3",
            "--json",
        ],
        &[0],
        "search",
    );
    assert_eq!(d["score"]["mate"], 1);
    let d = report(
        &[
            "search",
            "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",
            "--depth",
            "2",
            "--json",
        ],
        &[0],
        "search",
    );
    assert_eq!(d["bestmove"], "(none)");
}

#[test]
fn compare_and_fuzz_reports_validate_under_every_shape() {
    let broken = broken_engine();
    let ep = format!("{broken} --drop ep");
    let promo = format!("{broken} --drop underpromotion");
    let ours = format!("{} uci", perft_bin());
    let d = report(
        &["compare", "3", "cpw3", "--engine", &ep, "--json"],
        &[1],
        "compare",
    );
    assert_eq!(d["result"], "moves_differ");
    let d = report(
        &["compare", "2", "--engine", &broken, "--json"],
        &[0],
        "compare",
    );
    assert_eq!(d["result"], "agree");
    let d = report(
        &[
            "compare", "2", "kiwipete", "--moves", "e1g1", "--engine", &ours, "--json",
        ],
        &[0],
        "compare",
    );
    assert_eq!(d["moves"][0], "e1g1");
    let d = report(
        &["fuzz", "--engine", &promo, "--seed", "3", "--json"],
        &[1],
        "fuzz",
    );
    assert!(d["failure"].is_object());
    let d = report(
        &[
            "fuzz",
            "--engine",
            &ours,
            "--positions",
            "5",
            "--time",
            "30",
            "--json",
        ],
        &[0],
        "fuzz",
    );
    assert!(d["failure"].is_null() && d["time_limit"].is_number());
    let d = report(
        &[
            "fuzz",
            "--engine",
            &ours,
            "--chess960",
            "--positions",
            "20",
            "--depth",
            "2",
            "--json",
        ],
        &[0],
        "fuzz",
    );
    assert_eq!(d["chess960"], true);
}

#[test]
fn interrupted_reports_validate() {
    let standard = repo_path("positions/standard.epd");
    let standard = standard.to_str().unwrap();
    let ours = format!("{} uci", perft_bin());
    // Six runs at once, each stopped after 1.5 s.
    std::thread::scope(|s| {
        s.spawn(|| {
            let d = interrupted(
                &["count", "8", "--threads", "1", "--no-hash", "--json"],
                "count",
            );
            assert_eq!(d["stopped_by"], "interrupt");
        });
        s.spawn(|| {
            let d = interrupted(
                &["divide", "8", "--threads", "1", "--no-hash", "--json"],
                "divide",
            );
            assert_eq!(d["stopped_by"], "interrupt");
        });
        s.spawn(|| {
            let d = interrupted(
                &["suite", standard, "--threads", "1", "--no-hash", "--json"],
                "suite",
            );
            assert_eq!(d["stopped_by"], "interrupt");
        });
        s.spawn(|| {
            let d = interrupted(&["bench", "--threads", "1", "--json"], "bench");
            assert_eq!(d["complete"], false);
        });
        s.spawn(|| {
            let d = interrupted(
                &["compare", "9", "--no-hash", "--engine", &ours, "--json"],
                "compare",
            );
            assert_eq!(d["result"], "interrupted");
        });
        s.spawn(|| {
            let d = interrupted(
                &[
                    "fuzz",
                    "--engine",
                    &ours,
                    "--positions",
                    "1000000",
                    "--json",
                ],
                "fuzz",
            );
            assert_eq!(d["result"], "interrupted");
        });
    });
}

/// Validates every file of a job directory: the manifest, every unit line,
/// every result line. Returns how many documents were checked.
fn validate_job(dir: &Path) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let schema = if name == "manifest.json" {
            let doc: Value = serde_json::from_str(&text).unwrap();
            assert_valid(&doc, "manifest", &path.display().to_string());
            n += 1;
            continue;
        } else if name.ends_with(".result.jsonl") {
            "result-line"
        } else if name.ends_with(".jsonl") {
            "unit-line"
        } else {
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            let doc: Value = serde_json::from_str(line).unwrap();
            assert_valid(&doc, schema, &format!("{}:{}", path.display(), i + 1));
            n += 1;
        }
    }
    n
}

/// A fresh, empty directory.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("schemas-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn ok(args: &[&str]) {
    let out = run_perft(args);
    assert!(out.status.success(), "perft {args:?}: {}", stderr(&out));
}

#[test]
fn merge_reports_and_job_files_validate() {
    use perft::perft::units::{ResultLine, seal, sha256_hex, unseal};

    let a = scratch("a");
    let b = scratch("b");
    let (ad, bd) = (a.to_str().unwrap(), b.to_str().unwrap());
    for dir in [ad, bd] {
        ok(&[
            "split",
            "3",
            "--split-ply",
            "2",
            "--units",
            "3",
            "--out",
            dir,
        ]);
    }
    assert_eq!(validate_job(&a), 1 + 400);
    // No unit run: every unit missing.
    let d = report(&["merge", ad, "--json"], &[1], "merge");
    assert_eq!(d["incomplete"][0]["problem"]["status"], "missing");
    // One unit run: missing and complete units.
    ok(&[
        "run-unit",
        ad,
        "--index",
        "0",
        "--hash",
        "1MiB",
        "--zobrist-seed",
        "1",
    ]);
    report(&["merge", ad, "--json"], &[1], "merge");
    // A result file cut short: partial; a changed digit: corrupt.
    let result0 = a.join("unit-00000.result.jsonl");
    let good = std::fs::read_to_string(&result0).unwrap();
    let lines: Vec<&str> = good.lines().collect();
    std::fs::write(&result0, lines[..3].join("\n") + "\n").unwrap();
    let d = report(&["merge", ad, "--json"], &[1], "merge");
    assert_eq!(d["incomplete"][0]["problem"]["status"], "partial");
    std::fs::write(&result0, good.replacen("\"count\":\"", "\"count\":\"1", 1)).unwrap();
    let d = report(&["merge", ad, "--json"], &[1], "merge");
    assert_eq!(d["incomplete"][0]["problem"]["status"], "corrupt");
    std::fs::write(&result0, &good).unwrap();
    // Complete: the total (published: start position D3 8,902) and the divide.
    ok(&["run", ad, "--hash", "1MiB", "--zobrist-seed", "1"]);
    let d = report(&["merge", ad, "--json"], &[0], "merge");
    assert_eq!(d["nodes"], 8902);
    assert_eq!(validate_job(&a), 1 + 400 + 400 + 3);
    dump_path("job", &a);
    // --verify: one run incomplete, then agreeing, then differing.
    let d = report(&["merge", ad, "--verify", bd, "--json"], &[1], "merge");
    assert!(d["verify"].is_null() && !d["incomplete"].as_array().unwrap().is_empty());
    ok(&["run", bd, "--hash", "1MiB", "--zobrist-seed", "2"]);
    let d = report(&["merge", ad, "--verify", bd, "--json"], &[0], "merge");
    assert_eq!(d["verify"]["differences"], Value::Array(vec![]));
    // One count forged in b, with valid checksums and summary.
    let result = b.join("unit-00001.result.jsonl");
    let text = std::fs::read_to_string(&result).unwrap();
    let mut records = String::new();
    let mut summary = None;
    let mut sum = 0u128;
    for (i, line) in text.lines().enumerate() {
        match serde_json::from_str::<ResultLine>(&unseal(line).unwrap()).unwrap() {
            ResultLine::Record(mut r) => {
                if i == 0 {
                    r.count += 1;
                    r.product = r.count * r.multiplicity;
                }
                sum += r.product;
                records.push_str(&seal(
                    &serde_json::to_string(&ResultLine::Record(r)).unwrap(),
                ));
                records.push('\n');
            }
            ResultLine::Summary(s) => summary = Some(s),
        }
    }
    let mut s = summary.unwrap();
    s.sum = sum;
    s.results_sha256 = sha256_hex(records.as_bytes());
    let body = format!(
        "{records}{}\n",
        seal(&serde_json::to_string(&ResultLine::Summary(s)).unwrap())
    );
    std::fs::write(&result, body).unwrap();
    let d = report(&["merge", ad, "--verify", bd, "--json"], &[1], "merge");
    assert_eq!(d["verify"]["differences"].as_array().unwrap().len(), 1);
}
