//! The page: plotly.js inline, one `<section>` per kind of data, the figures as JSON in one
//! script (escaped with [`escape::json_for_script`]), every visible name HTML-escaped.

use std::fmt::Write as _;

use crate::escape;
use crate::section::Section;
use crate::Report;

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:72em;\
padding:0 1em;color:#222}h2{border-bottom:1px solid #ccc}.plot{min-height:360px}\
.note{color:#a60}.details{background:#f6f6f6;padding:.5em;white-space:pre-wrap}code{background:#f3f3f3;padding:0 .3em}";

/// What an empty report says: there is nothing yet, and how to make something.
const NOTHING_YET: &str = "<p id=\"nothing-yet\">Nothing to report yet: the store holds no \
measurements and no profile files were given.</p><ul>\
<li>Measure a program: <code>metron measure -- ./app input</code>, then \
<code>metron report -o report.html</code>.</li>\
<li>Profile regions with metron-probe (<code>METRON_REGION</code> in C, \
<code>metron_probe::region!</code> in Rust), then <code>metron report profile.json -o report.html</code>.</li>\
<li>See everything at once: <code>metron demo</code>.</li></ul>";

pub fn render(report: &Report) -> String {
    let mut page = String::with_capacity(5_000_000);
    let title = escape::html(&report.title);
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"generator\" content=\"metron {}\"><title>{title}</title>\
         <style>{STYLE}</style>\n<script>",
        env!("CARGO_PKG_VERSION")
    );
    page.push_str(&crate::plotly_js::source());
    let _ = write!(page, "</script></head>\n<body><h1>{title}</h1>\n");
    body(&mut page, report);
    page.push_str(&figures_script(&report.sections));
    page.push_str("</body></html>\n");
    page
}

fn body(page: &mut String, report: &Report) {
    for n in &report.notes {
        let _ = writeln!(page, "<p class=\"note\">{}</p>", escape::html(n));
    }
    if report.is_empty() {
        page.push_str(NOTHING_YET);
        return;
    }
    page.push_str("<nav><ul>");
    for s in &report.sections {
        let _ = write!(
            page,
            "<li><a href=\"#{}\">{}</a></li>",
            s.kind.id(),
            s.kind.title()
        );
    }
    page.push_str("</ul></nav>\n");
    let mut n = 0;
    for s in &report.sections {
        let _ = writeln!(
            page,
            "<section id=\"{}\"><h2>{}</h2><p>{}</p>",
            s.kind.id(),
            s.kind.title(),
            escape::html(&s.summary)
        );
        for f in &s.figures {
            let _ = writeln!(
                page,
                "<h3>{}</h3><div class=\"plot\" id=\"fig-{n}\"></div>",
                escape::html(&f.title)
            );
            if f.click_details {
                let _ = writeln!(
                    page,
                    "<pre class=\"details\" id=\"fig-{n}-details\">Click a point for its details.</pre>"
                );
            }
            n += 1;
        }
        page.push_str("</section>\n");
    }
}

/// All figures as one JSON array, drawn in page order into `fig-0`, `fig-1`, ...; a figure
/// that fails says so in its place and does not stop the others.
fn figures_script(sections: &[Section]) -> String {
    let figures: Vec<_> = sections.iter().flat_map(|s| &s.figures).collect();
    let plots: Vec<_> = figures
        .iter()
        .map(
            |f| serde_json::json!({"data": f.data, "layout": f.layout, "details": f.click_details}),
        )
        .collect();
    format!(
        "<script>\nconst METRON_FIGURES = {};\n\
         METRON_FIGURES.forEach(function (f, i) {{\n\
           try {{\n\
             var div = document.getElementById('fig-' + i);\n\
             Plotly.newPlot(div, f.data, f.layout, {{responsive: true, displaylogo: false}});\n\
             if (f.details) {{\n\
               div.on('plotly_click', function (ev) {{\n\
                 var p = ev.points[0], d = p.customdata;\n\
                 // A summary line (min/mean/max) drawn over a unit takes the click: show the unit there.\n\
                 div.data.forEach(function (t) {{\n\
                   if (d !== undefined || !t.customdata) return;\n\
                   for (var j = 0; j < t.x.length; j++) {{\n\
                     if (t.x[j] === p.x && t.y[j] === p.y) {{ d = t.customdata[j]; break; }}\n\
                   }}\n\
                 }});\n\
                 if (d !== undefined) document.getElementById('fig-' + i + '-details').textContent = d;\n\
               }});\n\
             }}\n\
           }} catch (e) {{\n\
             document.getElementById('fig-' + i).textContent = 'This figure could not be drawn: ' + e;\n\
             console.error(e);\n\
           }}\n\
         }});\n</script>\n",
        escape::json_for_script(&plots)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::section::{Figure, SectionKind};

    fn report_with_name(name: &str) -> Report {
        let trace = serde_json::json!({"type": "bar", "name": name, "x": [name], "y": [1.0]});
        Report {
            title: "metron report".into(),
            sections: vec![Section {
                kind: SectionKind::Profiles,
                summary: format!("from {name}"),
                figures: vec![Figure::new(name.into(), vec![trace], serde_json::json!({}))],
            }],
            notes: vec![format!("skipped {name}")],
        }
    }

    #[test]
    fn a_hostile_region_name_never_appears_raw() {
        let evil = "<script>alert(1)</script>";
        let page = render(&report_with_name(evil));
        assert!(!page.contains(evil));
        assert!(!page.contains("alert(1)</"));
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(page.contains("\\u003cscript\\u003ealert(1)\\u003c/script\\u003e"));
    }

    #[test]
    fn an_empty_report_says_how_to_make_something() {
        let page = render(&Report {
            title: "metron report".into(),
            sections: vec![],
            notes: vec![],
        });
        assert!(page.contains("id=\"nothing-yet\""));
        assert!(page.contains("metron measure --"));
        assert!(!page.contains("<section"));
    }

    #[test]
    fn one_section_per_kind_with_a_div_per_figure() {
        let page = render(&report_with_name("solve"));
        assert_eq!(page.matches("<section id=\"profiles\">").count(), 1);
        assert!(!page.contains("id=\"measurements\""));
        assert!(page.contains("id=\"fig-0\"") && !page.contains("id=\"fig-1\""));
    }
}
