//! Sections of the report: one per kind of data present, and only when that data exists
//! (issue 19, "Sections"). Each builder turns typed results of another crate into figures.

pub mod jit;
pub mod measurement;
pub mod memory;
pub mod pep;
pub mod profile;
pub mod static_model;
pub mod tuning;

use serde::Serialize;
use serde_json::Value;

/// The kinds of data the report knows how to show, in page order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SectionKind {
    Profiles,
    Pep,
    Measurements,
    Tuning,
    Static,
    Memory,
    Jit,
}

impl SectionKind {
    pub fn title(self) -> &'static str {
        match self {
            SectionKind::Profiles => "Profiles",
            SectionKind::Pep => "PEP traces",
            SectionKind::Measurements => "Measurements",
            SectionKind::Tuning => "Tuning",
            SectionKind::Static => "Static models",
            SectionKind::Memory => "Memory and contention",
            SectionKind::Jit => "JIT",
        }
    }

    /// The section's anchor in the page.
    pub fn id(self) -> &'static str {
        match self {
            SectionKind::Profiles => "profiles",
            SectionKind::Pep => "pep",
            SectionKind::Measurements => "measurements",
            SectionKind::Tuning => "tuning",
            SectionKind::Static => "static",
            SectionKind::Memory => "memory",
            SectionKind::Jit => "jit",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Section {
    pub kind: SectionKind,
    /// One line under the heading: where the data came from.
    pub summary: String,
    pub figures: Vec<Figure>,
}

/// One plotly.js figure: its traces and layout exactly as plotly.js reads them. Names inside
/// are raw; the renderer escapes them.
#[derive(Debug, Clone, Serialize)]
pub struct Figure {
    pub title: String,
    pub data: Vec<Value>,
    pub layout: Value,
    /// A click on a point shows the point's `customdata` (plain text) below the plot.
    pub click_details: bool,
}

impl Figure {
    pub fn new(title: String, data: Vec<Value>, layout: Value) -> Figure {
        Figure {
            title,
            data,
            layout,
            click_details: false,
        }
    }

    pub fn with_click_details(self) -> Figure {
        Figure {
            click_details: true,
            ..self
        }
    }
}

/// Drops the sections that would be empty, so the page has one per kind of data present.
pub fn present(sections: impl IntoIterator<Item = Option<Section>>) -> Vec<Section> {
    sections
        .into_iter()
        .flatten()
        .filter(|s| !s.figures.is_empty())
        .collect()
}

/// A plotly `table` trace (drawn as SVG) from columns of already escaped cells.
pub fn table(header: &[&str], columns: Vec<Vec<Value>>) -> Value {
    let rows = columns.first().map_or(0, Vec::len);
    serde_json::json!({
        "type": "table",
        "header": {"values": header, "align": "left", "fill": {"color": "#e8e8e8"}},
        "cells": {"values": columns, "align": "left", "height": 24},
        "meta": rows,
    })
}

/// A height that shows every row of a [`table`] of `rows` rows.
pub fn table_height(rows: usize) -> usize {
    120 + 26 * rows.min(60)
}

/// The `p` quantile of sorted finite values, interpolated linearly (Hyndman-Fan type 7, as
/// numpy and R by default). `sorted` must not be empty.
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    let pos = p.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// One box per group from precomputed quartiles (Tukey fences clipped to the data), so that
/// thousands of values cost five numbers each on the page; one trace, so one colour and one
/// legend entry per `name`. Groups without finite values get no box; `None` if none has.
pub fn quartile_boxes(name: &str, groups: &[(String, &[f64])]) -> Option<Value> {
    let mut x = Vec::new();
    let mut stats: [Vec<f64>; 5] = Default::default();
    let mut n = Vec::new();
    for (label, values) in groups {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            continue;
        }
        v.sort_by(f64::total_cmp);
        let (q1, med, q3) = (quantile(&v, 0.25), quantile(&v, 0.5), quantile(&v, 0.75));
        let iqr = q3 - q1;
        let lo = v
            .iter()
            .copied()
            .find(|x| *x >= q1 - 1.5 * iqr)
            .unwrap_or(q1);
        let hi = v
            .iter()
            .rev()
            .copied()
            .find(|x| *x <= q3 + 1.5 * iqr)
            .unwrap_or(q3);
        for (s, value) in stats.iter_mut().zip([lo, q1, med, q3, hi]) {
            s.push(value);
        }
        x.push(label.clone());
        n.push(v.len());
    }
    if x.is_empty() {
        return None;
    }
    let [lo, q1, med, q3, hi] = stats;
    Some(serde_json::json!({
        "type": "box", "name": name, "x": x, "q1": q1, "median": med, "q3": q3,
        "lowerfence": lo, "upperfence": hi, "boxpoints": false, "customdata": n,
        "hovertemplate": format!("{name}, %{{x}}: median %{{median:.4g}}, IQR [%{{q1:.4g}}, \
            %{{q3:.4g}}], n = %{{customdata}}<extra></extra>"),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_figures(kind: SectionKind, n: usize) -> Section {
        let f = Figure::new("f".into(), vec![], Value::Null);
        Section {
            kind,
            summary: String::new(),
            figures: vec![f; n],
        }
    }

    #[test]
    fn quartile_boxes_match_hand_computed_quartiles() {
        // 1..=9: quartiles 3, 5, 7 (linear interpolation); 100 is beyond the fence.
        let mut v: Vec<f64> = (1..=9).map(f64::from).collect();
        v.push(100.0);
        let b =
            quartile_boxes("m1", &[("T = 2".into(), &v), ("T = 4".into(), &[f64::NAN])]).unwrap();
        assert_eq!(b["x"], serde_json::json!(["T = 2"]));
        assert_eq!(b["q1"][0], 3.25);
        assert_eq!(b["median"][0], 5.5);
        assert_eq!(b["q3"][0], 7.75);
        assert_eq!(b["upperfence"][0], 9.0);
        assert_eq!(b["lowerfence"][0], 1.0);
        assert_eq!(b["customdata"][0], 10);
        assert!(quartile_boxes("m", &[("x".into(), &[f64::NAN])]).is_none());
    }

    #[test]
    fn only_sections_with_data_are_kept_in_order() {
        let kept = present([
            Some(with_figures(SectionKind::Profiles, 0)),
            None,
            Some(with_figures(SectionKind::Measurements, 2)),
            Some(with_figures(SectionKind::Tuning, 1)),
        ]);
        let kinds: Vec<SectionKind> = kept.iter().map(|s| s.kind).collect();
        assert_eq!(kinds, [SectionKind::Measurements, SectionKind::Tuning]);
    }
}
