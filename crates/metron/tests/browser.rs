//! `metron report` opened in a real browser (issue 19, "Tested in a real browser"): Debian's
//! Chromium, headless, driven through chromedriver with the fantoccini WebDriver client. The
//! page comes from real runs (a store filled by `metron measure` and `metron tune run`, the
//! tune example's rank profiles, a probe profile of this process, metron-pep's mPAPI fixture).
//! Checks: no console errors, every figure drew marks, a click on a tuning point shows that
//! unit, hovering a profile bar shows its value. Screenshots go to
//! `target/browser-screenshots/` and their paths are printed.

mod common;

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::report_inputs::{hostile_profile, measure_true, tune_campaign, PEP_FIXTURE};
use common::run;
use fantoccini::actions::{InputSource, MouseActions, PointerAction, MOUSE_BUTTON_LEFT};
use fantoccini::{Client, ClientBuilder, Locator};
use metron_measure::tool::{self, testing};
use serde_json::{json, Value};

/// What Chromium needs on these machines (no GPU, no sandbox as root, no network chatter), as
/// issue 19 lists them; the profile directory is a fresh temporary one per run.
const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];
/// The whole browser part (start, load, checks, screenshots) must finish in this time.
const BROWSER_BUDGET: Duration = Duration::from_secs(90);
const WIDTH: u32 = 1280;

/// chromedriver on a free local port, killed when dropped.
struct Driver {
    child: Child,
    url: String,
}

impl Driver {
    fn start(program: &Path, log: &Path) -> Driver {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free local port")
            .port();
        let child = Command::new(program)
            .arg(format!("--port={port}"))
            .arg(format!("--log-path={}", log.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "chromedriver did not listen on port {port} within 20 s (log: {})",
                log.display()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Driver {
            child,
            url: format!("http://127.0.0.1:{port}"),
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// chromedriver's console log of the page (`goog:loggingPrefs`), an extension command that
/// fantoccini does not wrap.
#[derive(Debug)]
struct BrowserLog;

impl fantoccini::wd::WebDriverCompatibleCommand for BrowserLog {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!("session/{}/se/log", session.unwrap_or_default()))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(r#"{"type":"browser"}"#.into()))
    }
}

/// The report of every kind of data the examples make: Profiles, PEP, Measurements, Tuning.
fn report_of_real_runs(dir: &Path) -> PathBuf {
    let store = dir.join("metron.db");
    measure_true(&store, 2);
    let unit_profiles = tune_campaign(dir, &store);
    let own_profile = hostile_profile(dir);
    let out = dir.join("report.html");
    let o = run(
        &[
            "report",
            unit_profiles.to_str().unwrap(),
            own_profile.to_str().unwrap(),
            PEP_FIXTURE,
            "-o",
            out.to_str().unwrap(),
            "--json",
        ],
        &store,
    );
    let written = common::json(&o);
    for kind in ["profiles", "pep", "measurements", "tuning"] {
        assert!(
            written["sections"]
                .as_array()
                .unwrap()
                .contains(&json!(kind)),
            "no {kind} section: {written}"
        );
    }
    out
}

fn screenshot_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("browser-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_report_of_real_runs_works_in_chromium() {
    let Some(chromium) = testing::require(&tool::CHROMIUM) else {
        return;
    };
    let Some(chromedriver) = testing::require(&tool::CHROMEDRIVER) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let page = report_of_real_runs(tmp.path());
    let profile_dir = tempfile::tempdir().unwrap();
    let driver = Driver::start(&chromedriver, &tmp.path().join("chromedriver.log"));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let session = Session {
        chromium: &chromium,
        profile_dir: profile_dir.path(),
        driver: &driver,
        page: &page,
        shots: &screenshot_dir(),
    };
    let shots = rt
        .block_on(async { tokio::time::timeout(BROWSER_BUDGET, session.run()).await })
        .unwrap_or_else(|_| panic!("the browser checks took over {BROWSER_BUDGET:?}"));
    println!("screenshot: {}", shots.last().unwrap().display());
}

/// One browser session on the report.
struct Session<'a> {
    chromium: &'a Path,
    profile_dir: &'a Path,
    driver: &'a Driver,
    page: &'a Path,
    shots: &'a Path,
}

impl Session<'_> {
    async fn connect(&self) -> Client {
        let mut args: Vec<String> = CHROMIUM_FLAGS.iter().map(|s| s.to_string()).collect();
        args.push(format!("--user-data-dir={}", self.profile_dir.display()));
        args.push(format!("--window-size={WIDTH},1000"));
        let caps = json!({
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": self.chromium, "args": args},
            "goog:loggingPrefs": {"browser": "ALL"},
        });
        let Value::Object(caps) = caps else {
            unreachable!()
        };
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        ClientBuilder::new(connector)
            .capabilities(caps)
            .connect(&self.driver.url)
            .await
            .expect("a chromedriver session with headless Chromium")
    }

    /// The screenshots first (printed at once, so a failed check still leaves them to look
    /// at), then the checks, then the tuning section again with the clicked unit's details.
    async fn run(self) -> Vec<PathBuf> {
        let c = self.connect().await;
        let url = url::Url::from_file_path(self.page).unwrap();
        c.goto(url.as_str()).await.expect("the report loads");
        wait_for_figures(&c).await;
        let mut shots = self.screenshots(&c).await;
        for s in &shots {
            println!("screenshot: {}", s.display());
        }
        every_figure_drew_marks(&c).await;
        hovering_a_profile_bar_shows_its_value(&c).await;
        clicking_a_tuning_point_shows_the_unit(&c).await;
        if let Ok(section) = c.find(Locator::Css("section#tuning")).await {
            let png = section.screenshot().await.unwrap();
            shots.push(self.save("report-tuning-clicked.png", &png));
        }
        no_console_errors(&c).await;
        c.close().await.unwrap();
        shots
    }

    /// The whole page at its full height, then each section on its own.
    async fn screenshots(&self, c: &Client) -> Vec<PathBuf> {
        let height = c
            .execute("return document.documentElement.scrollHeight;", vec![])
            .await
            .ok()
            .and_then(|v| v.as_u64())
            .unwrap_or(1000)
            .clamp(600, 30_000) as u32;
        let mut out = Vec::new();
        if c.set_window_size(WIDTH, height).await.is_ok() {
            if let Ok(png) = c.screenshot().await {
                out.push(self.save("report-full.png", &png));
            }
        }
        let sections = c
            .find_all(Locator::Css("section[id]"))
            .await
            .unwrap_or_default();
        for s in sections {
            let (Ok(Some(id)), Ok(png)) = (s.attr("id").await, s.screenshot().await) else {
                continue;
            };
            out.push(self.save(&format!("report-{id}.png"), &png));
        }
        out
    }

    fn save(&self, name: &str, png: &[u8]) -> PathBuf {
        let path = self.shots.join(name);
        std::fs::write(&path, png).unwrap();
        path
    }
}

/// plotly.js draws every figure synchronously on load; wait until each `.plot` div holds
/// its `svg.main-svg` or says it could not be drawn.
async fn wait_for_figures(c: &Client) {
    let script = "return Array.from(document.querySelectorAll('div.plot')).every(d =>
        d.querySelector('svg.main-svg') || d.textContent.includes('could not be drawn'));";
    let started = Instant::now();
    loop {
        if c.execute(script, vec![]).await.unwrap() == json!(true) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the figures were not drawn within 30 s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Every `.plot` div drew marks: SVG shapes with a non-empty box, or a canvas (WebGL traces)
/// with a non-zero size.
async fn every_figure_drew_marks(c: &Client) {
    let script = r#"
        return Array.from(document.querySelectorAll('div.plot')).map(d => {
          const marks = Array.from(d.querySelectorAll(
              // Trace groups, heat-map images, points, icicle/pie slices, bars.
              'svg.main-svg .trace path, svg.main-svg .hm image, svg.main-svg .point,'
              + ' svg.main-svg .slice path, svg.main-svg .bars path'))
            .filter(e => { const b = e.getBoundingClientRect(); return b.width > 0 || b.height > 0; });
          const canvases = Array.from(d.querySelectorAll('canvas'))
            .filter(e => e.width > 0 && e.height > 0);
          return {id: d.id, marks: marks.length, canvases: canvases.length,
                  failed: d.textContent.includes('could not be drawn') ? d.textContent : null};
        });"#;
    let figures = c.execute(script, vec![]).await.unwrap();
    let figures = figures.as_array().unwrap();
    assert!(!figures.is_empty(), "no figure in the page");
    let blank: Vec<&Value> = figures
        .iter()
        .filter(|f| {
            let drawn = f["marks"].as_u64().unwrap() + f["canvases"].as_u64().unwrap();
            !f["failed"].is_null() || drawn == 0
        })
        .collect();
    assert!(blank.is_empty(), "figures that drew nothing: {blank:#?}");
    println!("{} figures drew marks", figures.len());
}

/// The id of the first figure of `section` whose first trace has type `kind`.
async fn figure_of(c: &Client, section: &str, kind: &str) -> String {
    let script = "const [section, kind] = arguments;
        const d = Array.from(document.querySelectorAll('section#' + section + ' div.plot'))
          .find(d => d.data && d.data.length && d.data[0].type === kind);
        return d ? d.id : null;";
    let id = c
        .execute(script, vec![json!(section), json!(kind)])
        .await
        .unwrap();
    id.as_str()
        .unwrap_or_else(|| panic!("no {kind} figure in section {section}"))
        .to_string()
}

/// Moves the real pointer over the tallest bar of the profile bar chart; plotly's hover label
/// must show that bar's value, the largest in the figure's data, as the hover template
/// formats it (`%{y:.6g}`, which is JavaScript's `toPrecision(6)`). Two bars within a pixel
/// of each other (two ranks' equal times: 5.49660 and 5.49664 ms) cannot be told apart by
/// height, so either value is accepted.
async fn hovering_a_profile_bar_shows_its_value(c: &Client) {
    let id = figure_of(c, "profiles", "bar").await;
    let find = "const id = arguments[0];
        const bars = Array.from(document.querySelectorAll('#' + id + ' .bars path'));
        let best = 0;
        bars.forEach((b, i) => { if (b.getBoundingClientRect().height >
            bars[best].getBoundingClientRect().height) best = i; });
        bars[best].scrollIntoView({block: 'center'});
        const ys = document.getElementById(id).data.flatMap(t => t.y).filter(v => v !== null);
        const top = Math.max(...ys);
        const h = bars[best].getBoundingClientRect().height;
        // Bars within a pixel of the tallest are drawn alike: any of their values will do.
        const near = ys.filter(v => v >= top * (h - 1) / h).map(v => v.toPrecision(6));
        return {index: best, expected: near};";
    let found = c.execute(find, vec![json!(id)]).await.unwrap();
    let bars = c
        .find_all(Locator::Css(&format!("#{id} .bars path")))
        .await
        .unwrap();
    let bar = bars[found["index"].as_u64().unwrap() as usize].clone();
    let hover = MouseActions::new("mouse".into())
        .then(PointerAction::MoveToElement {
            element: bar,
            duration: Some(Duration::from_millis(100)),
            x: 0.0,
            y: 0.0,
        })
        .then(PointerAction::Pause {
            duration: Duration::from_millis(300),
        });
    c.perform_actions(hover).await.unwrap();
    let label = text_when(c, &format!("#{id} .hoverlayer"), |t| !t.is_empty()).await;
    let expected: Vec<&str> = found["expected"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert!(
        expected.iter().any(|e| label.contains(e)),
        "hover on the tallest bar of {id} shows `{label}`, not its value (one of {expected:?})"
    );
    println!("hover on {id}: {label}");
    c.release_actions().await.unwrap();
}

/// Clicks a tuning point with the real pointer; the details below the plot must become the
/// clicked unit's details (its `customdata`: key, folder, parameters).
async fn clicking_a_tuning_point_shows_the_unit(c: &Client) {
    let id = c
        .execute(
            "const p = document.querySelector('section#tuning pre.details');
             return p ? p.id.replace(/-details$/, '') : null;",
            vec![],
        )
        .await
        .unwrap();
    let id = id.as_str().expect("a tuning figure with click details");
    let points = c
        .find_all(Locator::Css(&format!("#{id} .scatterlayer .point")))
        .await
        .unwrap();
    let k = points.len() - 1;
    // The units drawn at the same place as point k: any of them is a right answer.
    let expected = c
        .execute(
            "const [id, k] = arguments; const t = document.getElementById(id).data[0];
             const idx = t.x.map((x, i) => i).filter(i => t.y[i] !== null);
             const p = idx[k];
             document.querySelectorAll('#' + id + ' .scatterlayer .point')[k]
               .scrollIntoView({block: 'center'});
             return idx.filter(i => t.x[i] === t.x[p] && t.y[i] === t.y[p])
               .map(i => t.customdata[i]);",
            vec![json!(id), json!(k)],
        )
        .await
        .unwrap();
    let click = MouseActions::new("mouse".into())
        .then(PointerAction::MoveToElement {
            element: points[k].clone(),
            duration: Some(Duration::from_millis(100)),
            x: 0.0,
            y: 0.0,
        })
        .then(PointerAction::Pause {
            duration: Duration::from_millis(200),
        })
        .then(PointerAction::Down {
            button: MOUSE_BUTTON_LEFT,
        })
        .then(PointerAction::Up {
            button: MOUSE_BUTTON_LEFT,
        });
    c.perform_actions(click).await.unwrap();
    let details = text_when(c, &format!("#{id}-details"), |t| t.starts_with("unit ")).await;
    assert!(
        expected.as_array().unwrap().contains(&json!(details)),
        "clicked point {k} of {id}; details show\n{details}\nexpected one of {expected}"
    );
    println!("click on {id}: {}", details.lines().next().unwrap_or(""));
    c.release_actions().await.unwrap();
}

/// The text of `selector` once `ready` holds for it (plotly updates after the event loop
/// turns), or what it was after 5 s.
async fn text_when(c: &Client, selector: &str, ready: impl Fn(&str) -> bool) -> String {
    let script = "const e = document.querySelector(arguments[0]); return e ? e.textContent : '';";
    let started = Instant::now();
    loop {
        let text = c.execute(script, vec![json!(selector)]).await.unwrap();
        let text = text.as_str().unwrap_or_default().to_string();
        if ready(&text) || started.elapsed() > Duration::from_secs(5) {
            return text;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Nothing at level SEVERE in the page's console since it loaded (uncaught exceptions, a
/// figure that threw, a failed load).
async fn no_console_errors(c: &Client) {
    let entries = browser_log(c).await;
    let errors: Vec<&Value> = entries.iter().filter(|e| e["level"] == "SEVERE").collect();
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    // The log is drained by each read. An error logged now must show up in the next read,
    // or the check above could not have failed.
    let probe = "metron browser test: console probe";
    c.execute("console.error(arguments[0]);", vec![json!(probe)])
        .await
        .unwrap();
    let after = browser_log(c).await;
    assert!(
        after
            .iter()
            .any(|e| e["level"] == "SEVERE" && e["message"].as_str().unwrap_or("").contains(probe)),
        "console.error does not reach the browser log: {after:#?}"
    );
    println!("console: {} entries, no error", entries.len());
}

async fn browser_log(c: &Client) -> Vec<Value> {
    let log = c
        .issue_cmd(BrowserLog)
        .await
        .expect("the browser's console log");
    log.as_array().cloned().unwrap_or_default()
}
