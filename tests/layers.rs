//! The architecture as a test: a layer of `src/` never names a layer above
//! it, and every relative link of the Markdown docs resolves.
//!
//! Layers, bottom up: `chess` < `perft`, `search` < `validate` < `error.rs`
//! < `report` < `cli` < `main.rs`. `perft` and `search` are siblings and do
//! not use each other.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::common::repo_path;

/// The crate modules each layer must not name (directly or in a `use`
/// group). `error` is the crate-level error type that `cli` returns.
const FORBIDDEN: [(&str, &[&str]); 6] = [
    (
        "chess",
        &["perft", "search", "validate", "report", "cli", "error"],
    ),
    ("perft", &["search", "validate", "report", "cli", "error"]),
    ("search", &["perft", "validate", "report", "cli", "error"]),
    ("validate", &["search", "report", "cli", "error"]),
    ("report", &["cli"]),
    ("error.rs", &["report", "cli"]),
];

/// Every `.rs` file under `dir` (or `dir` itself when it is a file).
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    if dir.is_file() {
        return vec![dir.to_path_buf()];
    }
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The top-level crate modules a source text names: `crate::x`, and each
/// `x` of `crate::{x, y::z}`.
fn crate_modules(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("crate::") {
        // `crate::` inside a longer identifier (`mycrate::`) does not count.
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let trimmed = rest.trim_start();
        if let Some(group) = trimmed.strip_prefix('{') {
            // Top-level names of the group: split at depth-0 commas.
            let mut depth = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.insert(first_ident(&item));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            out.insert(first_ident(&item));
        } else {
            out.insert(first_ident(trimmed));
        }
    }
    out.remove("");
    out
}

fn first_ident(text: &str) -> String {
    text.trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// Every forbidden reference under `src_root`, as `file: crate::module`.
fn violations(src_root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for (layer, forbidden) in FORBIDDEN {
        let dir = src_root.join(layer);
        if !dir.exists() {
            out.push(format!("{}: layer missing", dir.display()));
            continue;
        }
        for file in rust_files(&dir) {
            let text = fs::read_to_string(&file).expect("read source");
            for module in crate_modules(&text) {
                if forbidden.contains(&module.as_str()) {
                    out.push(format!("{}: crate::{module}", file.display()));
                }
            }
        }
    }
    out
}

#[test]
fn no_layer_names_a_layer_above_it() {
    let found = violations(&repo_path("src"));
    assert!(found.is_empty(), "upward imports:\n{}", found.join("\n"));
}

#[test]
fn src_holds_exactly_the_layers() {
    let mut names: Vec<String> = fs::read_dir(repo_path("src"))
        .expect("src")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "chess", "cli", "error.rs", "lib.rs", "main.rs", "perft", "report", "search",
            "validate"
        ]
    );
}

/// The checker itself catches an added upward import, in a plain `use`, in a
/// `use crate::{...}` group and in a path written inline.
#[test]
fn an_added_upward_import_is_caught() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("perft-layers-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    for layer in ["chess", "perft", "search", "validate", "report"] {
        fs::create_dir_all(dir.join(layer)).expect("mkdir");
    }
    fs::write(dir.join("error.rs"), "use crate::chess::fen::InvalidFen;\n").expect("write");
    fs::write(
        dir.join("chess/position.rs"),
        "use crate::chess::bitboard::Bitboard;\nuse crate::perft::hash::PerftTable;\n",
    )
    .expect("write");
    fs::write(
        dir.join("perft/count.rs"),
        "use crate::{chess::moves::Move, search::tt::Tt};\n",
    )
    .expect("write");
    fs::write(
        dir.join("search/tt.rs"),
        "fn f() { let _ = crate::cli::config::parse_seconds(\"1\"); }\n",
    )
    .expect("write");
    fs::write(dir.join("validate/suite.rs"), "use crate::perft::Perft;\n").expect("write");
    fs::write(
        dir.join("report/mod.rs"),
        "use crate::validate::bisect::Level;\n",
    )
    .expect("write");
    let found = violations(&dir);
    let _ = fs::remove_dir_all(&dir);
    let modules: Vec<&str> = found
        .iter()
        .map(|v| v.rsplit(": ").next().unwrap_or(""))
        .collect();
    assert_eq!(
        modules,
        ["crate::perft", "crate::search", "crate::cli"],
        "{found:?}"
    );
}

/// The sibling modules a file of layer `layer` names outside its tests:
/// `crate::layer::m` and `super::m` (a file directly under the layer's
/// folder), `m` being another file or folder of that layer. Comments (doc
/// links among them) do not count.
fn sibling_modules(layer: &str, text: &str, siblings: &BTreeSet<String>) -> BTreeSet<String> {
    let code: String = text
        .split("#[cfg(test)]")
        .next()
        .unwrap_or("")
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let code = code.as_str();
    let mut out = BTreeSet::new();
    for prefix in [format!("crate::{layer}::"), "super::".to_string()] {
        let mut rest = code;
        while let Some(at) = rest.find(&prefix) {
            rest = &rest[at + prefix.len()..];
            let names: Vec<String> = match rest.trim_start().strip_prefix('{') {
                Some(group) => group
                    .split(['}', ';'])
                    .next()
                    .unwrap_or("")
                    .split(',')
                    .map(first_ident)
                    .collect(),
                None => vec![first_ident(rest)],
            };
            out.extend(names.into_iter().filter(|n| siblings.contains(n)));
        }
    }
    out
}

/// Import cycles among the files of one layer's folder (`a` uses `b` and
/// `b` uses `a`, directly or through others), as `a -> b -> a`. Test modules
/// are left out: a test may use another module's test helpers.
fn module_cycles(layer_dir: &Path, layer: &str) -> Vec<String> {
    let mut siblings = BTreeSet::new();
    let mut files = Vec::new();
    for entry in fs::read_dir(layer_dir).expect("layer folder") {
        let path = entry.expect("entry").path();
        let name = path
            .file_stem()
            .expect("file name")
            .to_string_lossy()
            .into_owned();
        if name == "mod" || name == "tests" {
            continue;
        }
        if path.is_dir() || path.extension().is_some_and(|e| e == "rs") {
            siblings.insert(name.clone());
            files.push((name, path));
        }
    }
    let mut edges: std::collections::BTreeMap<String, BTreeSet<String>> = Default::default();
    for (name, path) in &files {
        let mut used = BTreeSet::new();
        for file in rust_files(path) {
            // A sub-folder's `tests.rs` is its test module (`#[cfg(test)] mod
            // tests;`), left out like the tests inside a file.
            if file.file_stem().is_some_and(|s| s == "tests") {
                continue;
            }
            let text = fs::read_to_string(&file).expect("read source");
            // `super::` in a file of a sub-folder means that folder, not the layer.
            let direct = file.parent() == Some(layer_dir);
            for m in sibling_modules(layer, &text, &siblings) {
                if m != *name && (direct || text.contains(&format!("crate::{layer}::{m}"))) {
                    used.insert(m);
                }
            }
        }
        edges.insert(name.clone(), used);
    }
    // Depth-first search from every module, reporting each cycle once per start.
    let mut cycles = BTreeSet::new();
    fn walk(
        at: &str,
        path: &mut Vec<String>,
        edges: &std::collections::BTreeMap<String, BTreeSet<String>>,
        cycles: &mut BTreeSet<String>,
    ) {
        for next in &edges[at] {
            if let Some(i) = path.iter().position(|p| p == next) {
                let mut cycle = path[i..].to_vec();
                let min = (0..cycle.len()).min_by_key(|&k| &cycle[k]).unwrap_or(0);
                cycle.rotate_left(min);
                cycle.push(cycle[0].clone());
                cycles.insert(cycle.join(" -> "));
            } else {
                path.push(next.clone());
                walk(next, path, edges, cycles);
                path.pop();
            }
        }
    }
    for start in edges.keys() {
        walk(start, &mut vec![start.clone()], &edges, &mut cycles);
    }
    cycles.into_iter().collect()
}

#[test]
fn no_import_cycle_between_the_files_of_a_layer() {
    let src = repo_path("src");
    let mut found = Vec::new();
    for layer in ["chess", "perft", "search", "validate", "report", "cli"] {
        for cycle in module_cycles(&src.join(layer), layer) {
            found.push(format!("src/{layer}: {cycle}"));
        }
    }
    assert!(found.is_empty(), "import cycles:\n{}", found.join("\n"));
}

/// The cycle finder itself: the count/replies cycle the perft layer once had
/// (through an inline path and a `use` group) is reported, and a one-way use
/// is not.
#[test]
fn an_import_cycle_is_caught() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("perft-cycles-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("mkdir");
    fs::write(
        dir.join("count.rs"),
        "use crate::perft::{leaf::Scratch, replies::perft2_plain};\n",
    )
    .expect("write");
    fs::write(
        dir.join("replies.rs"),
        "fn f() { crate::perft::count::for_each_child(); }\n#[cfg(test)]\nmod tests { use super::leaf; }\n",
    )
    .expect("write");
    fs::write(dir.join("leaf.rs"), "use super::hash::PerftTable;\n").expect("write");
    fs::write(
        dir.join("hash.rs"),
        "#[cfg(test)]\nmod tests { use crate::perft::leaf; }\n",
    )
    .expect("write");
    let found = module_cycles(&dir, "perft");
    let _ = fs::remove_dir_all(&dir);
    assert_eq!(found, ["count -> replies -> count"]);
}

/// Relative links `[text](path)` and `[text](path#anchor)` of every
/// Markdown file in the repository point at files that exist.
#[test]
fn relative_links_in_the_docs_resolve() {
    let root = repo_path("");
    let mut files = vec![root.join("README.md"), root.join("CHANGELOG.md")];
    for dir in ["docs", "scripts", "positions"] {
        let Ok(entries) = fs::read_dir(root.join(dir)) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("entry").path();
            if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let mut rest = text.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let Some(end) = rest.find(')') else { break };
            let target = &rest[..end];
            let path = target.split('#').next().unwrap_or("");
            if path.is_empty() || path.contains("://") || path.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let resolved = file.parent().expect("parent").join(path);
            if !resolved.exists() {
                broken.push(format!("{}: {target}", file.display()));
            }
        }
    }
    assert!(checked >= 10, "only {checked} relative links found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}
