//! Every JSON report kind has a JSON Schema under docs/schema/; real
//! outputs of every kind are validated against it here (the subset of JSON
//! Schema those files use: `type`, `const`, `enum`, `properties`,
//! `required`, `additionalProperties: false`, `items`).

use serde_json::Value;

use crate::common::{broken_engine, repo_path, run_perft, stderr, write_temp};

fn type_ok(v: &Value, t: &str) -> bool {
    match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "integer" => v.is_u64() || v.is_i64(),
        "number" => v.is_number(),
        "string" => v.is_string(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => panic!("unknown schema type {t}"),
    }
}

/// Errors of `v` against `schema`, with JSON paths.
pub fn validate(v: &Value, schema: &Value, path: &str, errors: &mut Vec<String>) {
    if let Some(c) = schema.get("const")
        && c != v
    {
        errors.push(format!("{path}: expected {c}, found {v}"));
    }
    if let Some(Value::Array(allowed)) = schema.get("enum")
        && !allowed.contains(v)
    {
        errors.push(format!("{path}: {v} is not one of {allowed:?}"));
    }
    if let Some(t) = schema.get("type") {
        let ok = match t {
            Value::String(t) => type_ok(v, t),
            Value::Array(ts) => ts.iter().any(|t| type_ok(v, t.as_str().unwrap())),
            _ => panic!("bad type in schema at {path}"),
        };
        if !ok {
            errors.push(format!("{path}: {v} is not of type {t}"));
            return;
        }
    }
    if let Value::Object(map) = v {
        let props = schema.get("properties").and_then(Value::as_object);
        for key in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !map.contains_key(key.as_str().unwrap()) {
                errors.push(format!("{path}: missing required field {key}"));
            }
        }
        for (k, val) in map {
            match props.and_then(|p| p.get(k)) {
                Some(s) => validate(val, s, &format!("{path}.{k}"), errors),
                None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    errors.push(format!("{path}: field {k} is not in the schema"))
                }
                None => {}
            }
        }
    }
    if let (Value::Array(items), Some(s)) = (v, schema.get("items")) {
        for (i, item) in items.iter().enumerate() {
            validate(item, s, &format!("{path}[{i}]"), errors);
        }
    }
}

fn check(args: &[&str], kind: &str) {
    let out = run_perft(args);
    assert!(
        matches!(out.status.code(), Some(0 | 1 | 124)),
        "{args:?}: {}",
        stderr(&out)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    let path = repo_path(&format!("docs/schema/{kind}.schema.json"));
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("schema file")).unwrap();
    let mut errors = Vec::new();
    validate(&v, &schema, "$", &mut errors);
    assert!(
        errors.is_empty(),
        "{args:?} against {kind}.schema.json: {errors:#?}"
    );
}

#[test]
fn every_report_kind_validates_against_its_schema() {
    let broken = broken_engine();
    let ep = format!("{broken} --drop ep");
    let promo = format!("{broken} --drop underpromotion");
    let standard = repo_path("positions/standard.epd");
    let standard = standard.to_str().unwrap();
    let wrong = write_temp(
        "schema-wrong.epd",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 401\n",
    );
    check(&["count", "6", "--json"], "count");
    check(&["count", "4", "kiwipete", "--no-hash", "--json"], "count");
    check(&["divide", "2", "cpw4", "--json"], "divide");
    // Stopped by --max-time, and checked by --verify-table (both outcomes).
    let limited = ["--no-hash", "--threads", "1", "--max-time", "0.2", "--json"];
    check(&[&["count", "8"], &limited[..]].concat(), "count");
    check(&[&["divide", "8"], &limited[..]].concat(), "divide");
    let verify = [
        "--hash",
        "1MiB",
        "--threads",
        "1",
        "--verify-table",
        "--json",
    ];
    check(
        &[&["divide", "4", "kiwipete"], &verify[..]].concat(),
        "divide",
    );
    let tiny_key = ["--min-hash-depth", "1", "--table-key-bits", "16"];
    check(
        &[&["count", "5", "kiwipete"], &verify[..], &tiny_key[..]].concat(),
        "count",
    );
    check(
        &[
            "suite",
            standard,
            "--max-time",
            "0.3",
            "--threads",
            "1",
            "--json",
        ],
        "suite",
    );
    check(
        &["suite", standard, "--max-nodes", "50000", "--json"],
        "suite",
    );
    check(&["suite", wrong.to_str().unwrap(), "--json"], "suite");
    check(
        &[
            "suite",
            standard,
            "--max-nodes",
            "100000",
            "--engine",
            &ep,
            "--json",
        ],
        "suite",
    );
    check(
        &["bench", "--max-depth", "2", "--threads", "1,2", "--json"],
        "bench",
    );
    check(
        &["compare", "2", "cpw3", "--engine", &ep, "--json"],
        "compare",
    );
    check(&["compare", "2", "--engine", &broken, "--json"], "compare");
    check(
        &["fuzz", "--engine", &promo, "--seed", "3", "--json"],
        "fuzz",
    );
    check(
        &["fuzz", "--engine", &broken, "--positions", "20", "--json"],
        "fuzz",
    );
    check(&["search", "kiwipete", "--depth", "3", "--json"], "search");
}
