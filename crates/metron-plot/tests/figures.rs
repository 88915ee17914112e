//! Figures of each kind from hand-written inputs whose numbers are known: the SVG parses as
//! XML and holds one mark per datum at the right place; the PNG has the asked size and is
//! not blank.

use std::path::{Path, PathBuf};

use metron_plot::{measurement, pep, profile, tuning, Figure, Size};
use metron_store::TuneUnitRow;

const PEP_FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../metron-pep/tests/data/with_address.trace"
);

/// A metron-probe profile file as the library writes it: one thread, regions with totals in ms.
fn rank_json(rank: u32, regions: &[(&str, f64)]) -> String {
    let regions: Vec<String> = regions
        .iter()
        .map(|(name, ms)| {
            let ns = ms * 1e6;
            format!(
                r#"{{"name": "{name}", "total_ns": {ns}, "count": 1, "mean_ns": {ns}, "min_ns": {ns}, "max_ns": {ns}, "errors": 0, "open_at_exit": false}}"#
            )
        })
        .collect();
    format!(
        r#"{{"format": "metron-probe-profile", "version": 1, "rank": {rank}, "host": "n1", "pid": {pid},
  "cmdline": ["./app"], "start_time_unix_ns": 1700000000000000000,
  "clock": {{"name": "tsc", "ticks_per_ns": 2.5, "calibration": "startup", "granularity_ns": 10.0}},
  "call_tree": false, "threads": [
    {{"index": 0, "tid": {pid}, "name": "main", "tree_errors": 0, "timeline_events": 0, "timeline_dropped": 0,
     "regions": [{}], "tree": []}}]}}
"#,
        regions.join(",\n"),
        pid = 100 + rank
    )
}

/// Two ranks: solve 10 and 20 ms, io 2 and 4 ms, setup only on rank 0 (5 bars).
fn two_ranks(dir: &Path) -> PathBuf {
    let d = dir.join("profile");
    std::fs::create_dir(&d).unwrap();
    let r0 = rank_json(0, &[("solve", 10.0), ("io", 2.0), ("setup", 1.0)]);
    std::fs::write(d.join("metron-rank0.json"), r0).unwrap();
    let r1 = rank_json(1, &[("solve", 20.0), ("io", 4.0)]);
    std::fs::write(d.join("metron-rank1.json"), r1).unwrap();
    d
}

fn svg(figure: &Figure, dir: &Path) -> String {
    let path = dir.join("f.svg");
    let w = metron_plot::render(figure, &path, Size::default()).unwrap();
    assert_eq!(w.marks, figure.marks());
    let text = std::fs::read_to_string(&path).unwrap();
    roxmltree::Document::parse(&text).expect("the SVG is well-formed XML");
    text
}

/// Elements named `tag` whose attribute `attr` satisfies `keep`.
fn elements<'a>(
    doc: &'a roxmltree::Document,
    tag: &str,
    keep: impl Fn(&roxmltree::Node) -> bool,
) -> Vec<roxmltree::Node<'a, 'a>> {
    doc.descendants()
        .filter(|n| n.has_tag_name(tag))
        .filter(|n| keep(n))
        .collect()
}

fn num(n: &roxmltree::Node, attr: &str) -> f64 {
    n.attribute(attr).unwrap().parse().unwrap()
}

#[test]
fn profile_bars_one_per_region_and_rank_heights_in_proportion() {
    let dir = tempfile::tempdir().unwrap();
    let f = Figure::Profile(profile::BarFigure::load(&two_ranks(dir.path())).unwrap());
    assert_eq!(f.marks(), 5);
    let text = svg(&f, dir.path());
    let doc = roxmltree::Document::parse(&text).unwrap();
    // Filled bars: every rect but the white background.
    let bars = elements(&doc, "rect", |n| {
        n.attribute("fill")
            .is_some_and(|c| c != "none" && c != "#FFFFFF")
    });
    assert_eq!(bars.len(), 5, "{text}");
    // Region order is the profile's: solve r0, solve r1, io r0, io r1, setup r0.
    let h: Vec<f64> = bars.iter().map(|b| num(b, "height")).collect();
    assert!(
        (h[1] / h[0] - 2.0).abs() < 0.05,
        "solve 20 ms vs 10 ms: {h:?}"
    );
    assert!(
        (h[0] / h[2] - 5.0).abs() < 0.1,
        "solve 10 ms vs io 2 ms: {h:?}"
    );
    assert!((h[3] / h[2] - 2.0).abs() < 0.2, "io 4 ms vs 2 ms: {h:?}");
    // Bars stand on the same baseline.
    let base: Vec<f64> = bars
        .iter()
        .map(|b| num(b, "y") + num(b, "height"))
        .collect();
    assert!(base.iter().all(|b| (b - base[0]).abs() <= 1.0), "{base:?}");
}

fn unit(key: &str, params: &str, fitness: Option<f64>) -> TuneUnitRow {
    TuneUnitRow {
        library: "lib".into(),
        key: key.into(),
        params: params.into(),
        status: if fitness.is_some() { "ok" } else { "failed" }.into(),
        fitness,
        failed_stage: None,
        reason: None,
        stderr_tail: None,
        experiment_id: Some(1),
    }
}

fn campaign() -> tuning::Campaign {
    tuning::Campaign {
        library: "lib".into(),
        experiment: 7,
        units: vec![
            unit(
                "a",
                r#"[["ranks","1"],["threads",4],["smoother","\"GS\""]]"#,
                Some(8.0),
            ),
            unit(
                "b",
                r#"[["ranks","2"],["threads",4],["smoother","\"JAC\""]]"#,
                Some(4.5),
            ),
            unit(
                "c",
                r#"[["ranks","4"],["threads",2],["smoother","\"GS\""]]"#,
                Some(3.0),
            ),
            unit(
                "d",
                r#"[["ranks","8"],["threads",2],["smoother","\"GS\""]]"#,
                None,
            ),
        ],
    }
}

#[test]
fn tuning_scatter_evaluates_expressions_over_genes() {
    let c = campaign();
    assert_eq!(c.first_varying_gene().as_deref(), Some("ranks"));
    let s = tuning::ScatterFigure::from_campaign(&c, "ranks * threads", "fitness * ranks").unwrap();
    // Failed units have no fitness and no point.
    assert_eq!(s.points, vec![(4.0, 8.0), (8.0, 9.0), (8.0, 12.0)]);
    assert_eq!(tuning::mean_per_x(&s.points), [(4.0, 8.0), (8.0, 10.5)]);
    let s = tuning::ScatterFigure::from_campaign(&c, "if(smoother == \"GS\", 1, 0)", "fitness")
        .unwrap();
    assert_eq!(
        s.points.iter().map(|p| p.0).collect::<Vec<_>>(),
        [1.0, 0.0, 1.0]
    );
    let dir = tempfile::tempdir().unwrap();
    let text = svg(&Figure::Tuning(s), dir.path());
    let doc = roxmltree::Document::parse(&text).unwrap();
    assert_eq!(elements(&doc, "circle", |_| true).len(), 3, "{text}");
}

#[test]
fn a_bad_expression_is_named() {
    let e = tuning::ScatterFigure::from_campaign(&campaign(), "ranks *", "fitness").unwrap_err();
    assert!(e.to_string().contains("`ranks *`"), "{e}");
    let e = tuning::ScatterFigure::from_campaign(&campaign(), "cores", "fitness").unwrap_err();
    assert!(e.to_string().contains("unit a: `cores`"), "{e}");
}

#[test]
fn pep_one_line_per_member_event() {
    let f = pep::SeriesFigure::load(Path::new(PEP_FIXTURE), 0).unwrap();
    // The fixture's group: INST_RETIRED:ANY_P samples, four member events (000 Listing 3.2).
    assert_eq!(f.time, "INST_RETIRED:ANY_P");
    assert_eq!(f.panels.len(), 4);
    let dir = tempfile::tempdir().unwrap();
    let text = svg(&Figure::Pep(f.clone()), dir.path());
    let doc = roxmltree::Document::parse(&text).unwrap();
    // Axes and ticks are two-point polylines; a series has one point per sample.
    let lines = elements(&doc, "polyline", |n| {
        n.attribute("points").unwrap().split_whitespace().count() > 2
    });
    assert_eq!(lines.len(), 4, "{text}");
    for (line, (_, samples)) in lines.iter().zip(&f.panels) {
        let points = line.attribute("points").unwrap().split_whitespace().count();
        assert_eq!(points, samples.len());
    }
    assert!(pep::SeriesFigure::load(Path::new(PEP_FIXTURE), 99).is_err());
}

#[test]
fn png_has_the_asked_size_and_is_not_blank() {
    let dir = tempfile::tempdir().unwrap();
    let f = Figure::Profile(profile::BarFigure::load(&two_ranks(dir.path())).unwrap());
    let path = dir.path().join("bars.png");
    let size = Size {
        width: 640,
        height: 400,
    };
    metron_plot::render(&f, &path, size).unwrap();
    let decoder = png::Decoder::new(std::fs::File::open(&path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (640, 400));
    let channels = info.color_type.samples();
    let pixels = buf[..info.buffer_size()].chunks(channels);
    let white = pixels
        .clone()
        .filter(|p| p.iter().take(3).all(|&c| c == 255))
        .count();
    let total = (info.width * info.height) as usize;
    // Bars, axes and text cover a real part of the picture, and white still dominates.
    assert!(
        white < total * 97 / 100,
        "{white} of {total} pixels are white"
    );
    assert!(white > total / 2, "{white} of {total} pixels are white");
    // Text was drawn with the embedded font: dark pixels in the caption's band at the top.
    let caption = &buf[..40 * info.line_size];
    assert!(caption.chunks(channels).any(|p| p[0] < 100));
}

#[test]
fn an_unknown_extension_is_refused_before_drawing() {
    let dir = tempfile::tempdir().unwrap();
    let f = Figure::Profile(profile::BarFigure::load(&two_ranks(dir.path())).unwrap());
    let e = metron_plot::render(&f, &dir.path().join("fig.pdf"), Size::default()).unwrap_err();
    assert!(e.to_string().contains("fig.pdf"), "{e}");
    assert!(!dir.path().join("fig.pdf").exists());
}

#[test]
fn measurement_boxes_from_a_stored_experiment() {
    // The store's round trip is metron-measure's; here only that a report without runs is
    // refused and that the figure keeps one box per measured benchmark.
    let dir = tempfile::tempdir().unwrap();
    let store = metron_store::Store::open(&dir.path().join("m.db")).unwrap();
    let e = measurement::load(&store, None).unwrap_err();
    assert!(e.to_string().contains("m.db"), "{e}");
}
