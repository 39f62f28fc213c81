//! `perft versus --plot FILE.svg`: one bar group per position, one bar per
//! peer, its height the speed ratio to ours (above the dashed line at 1,
//! perft is faster), an error bar over the range of the per-round ratios,
//! and a legend. Hand-written SVG 1.1, no dependency; it opens in any
//! browser.

use std::fmt::Write as _;

use super::VersusReport;

/// Bar colours (colour-blind safe, Okabe-Ito).
const COLOURS: [&str; 7] = [
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
];

const WIDTH: f64 = 960.0;
const HEIGHT: f64 = 560.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 70.0;
const BOTTOM: f64 = 80.0;

/// Escapes `&`, `<`, `>` and quotes for SVG text and attributes.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A tick step giving about six ticks up to `max`.
fn tick_step(max: f64) -> f64 {
    let raw = max / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * mag)
}

/// The chart of `report`.
pub fn svg(report: &VersusReport) -> String {
    let peers: Vec<&str> = report.programs[1..]
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    let top = report
        .positions
        .iter()
        .flat_map(|p| p.results.iter().filter_map(|r| r.ratio.map(|x| x.max)))
        .fold(1.2f64, f64::max)
        * 1.1;
    let step = tick_step(top);
    let top = (top / step).ceil() * step;
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let y = |v: f64| TOP + plot_h * (1.0 - v / top);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="13">"#
    );
    let _ = writeln!(
        s,
        r##"<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>"##
    );
    let st = &report.settings;
    let title = "perft versus: speed ratio, perft / program (above 1: perft faster)";
    let subtitle = format!(
        "median of {} interleaved rounds, {} time of whole processes, {} thread{}{}; bars: range of the per-round ratios{}",
        st.rounds,
        if st.threads == 1 { "CPU" } else { "wall" },
        st.threads,
        if st.threads == 1 { "" } else { "s" },
        if st.hash_bytes == 0 {
            ", no table"
        } else {
            ", with a perft table"
        },
        if report.complete {
            ""
        } else {
            " (PARTIAL: interrupted)"
        }
    );
    let _ = writeln!(
        s,
        r#"<text x="{LEFT}" y="28" font-size="18" font-weight="bold">{}</text>"#,
        escape(title)
    );
    let _ = writeln!(
        s,
        r##"<text x="{LEFT}" y="48" font-size="12" fill="#444444">{}</text>"##,
        escape(&subtitle)
    );
    // Grid and y axis.
    let mut v = 0.0;
    while v <= top + 1e-9 {
        let yy = y(v);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="#dddddd"/>"##,
            WIDTH - RIGHT
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{v:.1}x</text>"#,
            LEFT - 6.0,
            yy + 4.0
        );
        v += step;
    }
    let _ = writeln!(
        s,
        r##"<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{:.1}" stroke="#000000"/>"##,
        TOP + plot_h
    );
    let one = y(1.0);
    let _ = writeln!(
        s,
        r##"<line x1="{LEFT}" y1="{one:.1}" x2="{:.1}" y2="{one:.1}" stroke="#000000" stroke-dasharray="6,4"/>"##,
        WIDTH - RIGHT
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="end" font-size="11">perft = 1</text>"#,
        WIDTH - RIGHT - 4.0,
        one - 4.0
    );
    // Bar groups.
    let groups = report.positions.len().max(1) as f64;
    let group_w = plot_w / groups;
    let bar_w = (group_w * 0.8 / peers.len().max(1) as f64).min(60.0);
    for (g, p) in report.positions.iter().enumerate() {
        let centre = LEFT + group_w * (g as f64 + 0.5);
        let first = centre - bar_w * peers.len() as f64 / 2.0;
        for (k, r) in p.results.iter().skip(1).enumerate() {
            let Some(ratio) = r.ratio else { continue };
            let x = first + bar_w * k as f64;
            let colour = COLOURS[k % COLOURS.len()];
            let top_y = y(ratio.median);
            let _ = writeln!(
                s,
                r#"<rect x="{:.1}" y="{top_y:.1}" width="{:.1}" height="{:.1}" fill="{colour}"><title>{} on {} D{}: {:.2}x ({:.2}-{:.2})</title></rect>"#,
                x + 1.0,
                bar_w - 2.0,
                y(0.0) - top_y,
                escape(&r.program),
                escape(&p.name),
                p.depth,
                ratio.median,
                ratio.min,
                ratio.max
            );
            let mid = x + bar_w / 2.0;
            let (lo, hi) = (y(ratio.min), y(ratio.max));
            let cap = (bar_w / 4.0).min(8.0);
            let _ = writeln!(
                s,
                r##"<path d="M{mid:.1} {lo:.1} V{hi:.1} M{:.1} {lo:.1} H{:.1} M{:.1} {hi:.1} H{:.1}" stroke="#000000" stroke-width="1.5" fill="none"/>"##,
                mid - cap,
                mid + cap,
                mid - cap,
                mid + cap
            );
            let _ = writeln!(
                s,
                r#"<text x="{mid:.1}" y="{:.1}" text-anchor="middle" font-size="11">{:.2}</text>"#,
                hi - 5.0,
                ratio.median
            );
        }
        let _ = writeln!(
            s,
            r#"<text x="{centre:.1}" y="{:.1}" text-anchor="middle">{} D{}</text>"#,
            TOP + plot_h + 20.0,
            escape(&p.name),
            p.depth
        );
    }
    if let Some(g) = (!report.geomean.is_empty()).then_some(&report.geomean) {
        let text: Vec<String> = g
            .iter()
            .map(|g| format!("{} {:.2}x", g.program, g.ratio))
            .collect();
        let _ = writeln!(
            s,
            r#"<text x="{LEFT}" y="{:.1}" font-size="12">geometric mean: {}</text>"#,
            TOP + plot_h + 45.0,
            escape(&text.join(", "))
        );
    }
    // Legend.
    let mut lx = LEFT;
    let ly = HEIGHT - 18.0;
    for (k, name) in peers.iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        let _ = writeln!(
            s,
            r#"<rect x="{lx:.1}" y="{:.1}" width="14" height="14" fill="{colour}"/>"#,
            ly - 11.0
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{ly:.1}">{}</text>"#,
            lx + 20.0,
            escape(name)
        );
        lx += 40.0 + 8.0 * name.chars().count() as f64;
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_numbers() {
        assert_eq!(tick_step(6.0), 1.0);
        assert_eq!(tick_step(1.32), 0.25);
        assert_eq!(tick_step(30.0), 5.0);
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
