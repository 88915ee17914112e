//! The metron experiment store: one SQLite file (default `.metron/metron.db`) that `metron
//! measure`, and later `metron tune` and `metron report`, write to and read from.
//!
//! Guarantees:
//! - every run is committed in its own transaction as soon as it finishes, so killing the writer
//!   (Ctrl-C, SIGTERM, `kill -9`) loses at most the run in flight;
//! - WAL mode and a generous busy timeout let several processes write to one store at once;
//! - a file that is not a metron store, or that a newer metron wrote, is refused and left
//!   untouched.

mod schema;
mod tune;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{params, Connection, OpenFlags, OptionalExtension, TransactionBehavior};
use serde::Serialize;

pub use schema::{latest_version, APPLICATION_ID};
pub use tune::{TuneGenerationRow, TuneUnitRow};

/// The store's default location, relative to the current directory.
pub const DEFAULT_PATH: &str = ".metron/metron.db";

/// How long a writer waits for another one before giving up. Runs are committed one at a time,
/// so a wait this long only happens when something is badly wrong.
const BUSY_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: not a metron store (it is {what}); refusing to touch it")]
    NotAStore { path: PathBuf, what: String },
    #[error("{path}: store schema version {found} is newer than this metron understands ({supported}); upgrade metron")]
    TooNew {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    #[error("{path}: no store here (run `metron measure` first, or pass --store PATH)")]
    Missing { path: PathBuf },
    #[error("{path}: cannot create the store directory: {source}")]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Sqlite {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("{path}: experiment {id} not found")]
    NoSuchExperiment { path: PathBuf, id: i64 },
    #[error("{path}: corrupt value in column {column}: {detail}")]
    Corrupt {
        path: PathBuf,
        column: &'static str,
        detail: String,
    },
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Primary keys, typed so that a run id is never passed where an experiment id is meant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct ExperimentId(pub i64);
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct BenchmarkId(pub i64);
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct RunId(pub i64);

/// Life cycle of an experiment. One left at `Running` by a dead process was interrupted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Running,
    Complete,
    Failed,
    /// Every run finished, but a stopping target (`--target-ci`) was not reached.
    Incomplete,
    /// Stopped by a signal; the runs before it are kept.
    Interrupted,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Running => "running",
            Status::Complete => "complete",
            Status::Failed => "failed",
            Status::Incomplete => "incomplete",
            Status::Interrupted => "interrupted",
        }
    }
}

/// What is known of an experiment when it starts. The JSON columns belong to the writer
/// (`metron-measure` documents its own), the store only keeps them.
#[derive(Debug, Clone)]
pub struct NewExperiment<'a> {
    pub kind: &'a str,
    pub name: Option<&'a str>,
    pub metron_version: &'a str,
    pub argv: &'a serde_json::Value,
    pub environment: &'a serde_json::Value,
    pub config: &'a serde_json::Value,
    pub host: Option<&'a str>,
}

/// One command with its parameter values: the unit whose runs are summarised together.
#[derive(Debug, Clone)]
pub struct NewBenchmark<'a> {
    pub position: u32,
    pub label: &'a str,
    pub command: &'a str,
    pub argv: &'a [String],
    pub params: &'a [(String, String)],
}

/// One finished run and everything measured in it.
#[derive(Debug, Clone)]
pub struct NewRun<'a> {
    pub benchmark: BenchmarkId,
    pub index: u32,
    pub warmup: bool,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub ok: bool,
    pub samples: &'a [Sample],
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sample {
    pub metric: String,
    pub value: f64,
    pub unit: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ExperimentRow {
    pub id: ExperimentId,
    pub kind: String,
    pub name: Option<String>,
    pub status: String,
    pub started_at: String,
    pub finished_at: Option<String>,
    pub metron_version: String,
    pub argv: serde_json::Value,
    pub environment: serde_json::Value,
    pub config: serde_json::Value,
    pub host: Option<String>,
    pub pid: Option<i64>,
    /// Counted (non-warm-up) runs stored so far, over all benchmarks.
    pub runs: i64,
}

#[derive(Debug, Clone, Serialize)]
pub struct BenchmarkRow {
    pub id: BenchmarkId,
    pub position: u32,
    pub label: String,
    pub command: String,
    pub argv: Vec<String>,
    pub params: Vec<(String, String)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RunRow {
    pub id: RunId,
    pub benchmark: BenchmarkId,
    pub index: u32,
    pub warmup: bool,
    pub started_at: String,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub ok: bool,
    pub samples: Vec<Sample>,
}

/// An open store. Cheap to keep open for a whole experiment; every write is its own
/// transaction.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens the store at `path`, creating it (and its directory) if there is none.
    ///
    /// A new store is built under a temporary name and linked into place whole, so that a
    /// file at `path` is either a complete store or not ours: an empty file there (0 bytes, or
    /// an SQLite database without tables) is refused like any other foreign file.
    pub fn open(path: &Path) -> Result<Store> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        if !path.exists() {
            create_whole(path)?;
        }
        let conn = Connection::open(path).map_err(sql(path))?;
        Self::init(conn, path)
    }

    /// Opens a store that must already exist, for writing.
    pub fn open_existing(path: &Path) -> Result<Store> {
        if !path.exists() {
            return Err(StoreError::Missing {
                path: path.to_path_buf(),
            });
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(sql(path))?;
        Self::init(conn, path)
    }

    /// Opens an existing store for reading only (`history`, `show`): nothing is written, no
    /// migration is run, so an archived, read-only store can be read. A store whose directory
    /// does not let SQLite keep its WAL index is opened as immutable.
    pub fn open_read_only(path: &Path) -> Result<Store> {
        if !path.exists() {
            return Err(StoreError::Missing {
                path: path.to_path_buf(),
            });
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let attempt = |uri: String| -> Result<Store> {
            let conn = Connection::open_with_flags(&uri, flags).map_err(sql(path))?;
            conn.busy_timeout(BUSY_TIMEOUT).map_err(sql(path))?;
            let store = Store {
                conn,
                path: path.to_path_buf(),
            };
            store.check_identity()?;
            if store.user_version()? == 0 {
                return Err(StoreError::NotAStore {
                    path: path.to_path_buf(),
                    what: "an SQLite database without metron's tables".into(),
                });
            }
            Ok(store)
        };
        let uri = file_uri(path);
        match attempt(uri.clone()) {
            Err(StoreError::Sqlite { .. }) => attempt(format!("{uri}?immutable=1")),
            other => other,
        }
    }

    fn init(conn: Connection, path: &Path) -> Result<Store> {
        conn.busy_timeout(BUSY_TIMEOUT).map_err(sql(path))?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
        };
        // Several processes may open a new store at once. Switching the journal to WAL does not
        // always wait in SQLite's busy handler, so a busy answer here is retried; every step is
        // idempotent.
        let start = std::time::Instant::now();
        loop {
            match store.prepare() {
                Err(StoreError::Sqlite {
                    source: rusqlite::Error::SqliteFailure(e, _),
                    ..
                }) if e.code == rusqlite::ErrorCode::DatabaseBusy
                    && start.elapsed() < BUSY_TIMEOUT =>
                {
                    std::thread::sleep(Duration::from_millis(5));
                }
                other => return other.map(|()| store),
            }
        }
    }

    fn prepare(&mut self) -> Result<()> {
        // Identity first: nothing may be written to a file that is not ours.
        self.check_identity()?;
        self.enable_wal()?;
        self.migrate()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn check_identity(&self) -> Result<()> {
        let not_a_store = |what: &str| StoreError::NotAStore {
            path: self.path.clone(),
            what: what.to_string(),
        };
        // One read transaction, so that both values come from the same snapshot: another
        // process creating this store commits its tables and its application id together, and
        // must not be seen half-way (tables present, id not yet).
        let snapshot = self.conn.execute_batch("BEGIN DEFERRED").and_then(|_| {
            let app_id: i32 = self
                .conn
                .query_row("PRAGMA application_id", [], |r| r.get(0))?;
            let tables: i64 =
                self.conn
                    .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
            Ok((app_id, tables))
        });
        let _ = self.conn.execute_batch("COMMIT");
        let (app_id, tables) = match snapshot {
            Ok(v) => v,
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::NotADatabase =>
            {
                return Err(not_a_store("not an SQLite database"));
            }
            Err(e) => return Err(sql(&self.path)(e)),
        };
        match (app_id, tables) {
            (APPLICATION_ID, _) => self.check_version(),
            // metron creates stores whole (see `open`), so an empty one is someone else's.
            (0, 0) => Err(not_a_store(
                if std::fs::metadata(&self.path).is_ok_and(|m| m.len() == 0) {
                    "an empty file (0 bytes); delete it to create a store there"
                } else {
                    "an SQLite database without tables"
                },
            )),
            (0, _) => Err(not_a_store("an SQLite database of another program")),
            (other, _) => Err(not_a_store(&format!(
                "an SQLite database with application id {other:#x}"
            ))),
        }
    }

    fn check_version(&self) -> Result<()> {
        let found = self.user_version()?;
        if found > latest_version() {
            return Err(StoreError::TooNew {
                path: self.path.clone(),
                found,
                supported: latest_version(),
            });
        }
        Ok(())
    }

    fn user_version(&self) -> Result<i64> {
        self.conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(sql(&self.path))
    }

    fn enable_wal(&self) -> Result<()> {
        let mode: String = self
            .conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .map_err(sql(&self.path))?;
        // WAL survives the writer being killed; NORMAL sync only risks the last commit on
        // power loss, never corruption.
        if mode.eq_ignore_ascii_case("wal") {
            self.conn
                .execute_batch("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;")
                .map_err(sql(&self.path))?;
        }
        Ok(())
    }

    /// Applies the missing migrations in one IMMEDIATE transaction, so that two processes
    /// creating the same new store do not both run them.
    fn migrate(&mut self) -> Result<()> {
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql(&path))?;
        let current: i64 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(sql(&path))?;
        if current > latest_version() {
            return Err(StoreError::TooNew {
                path,
                found: current,
                supported: latest_version(),
            });
        }
        for (i, migration) in schema::MIGRATIONS.iter().enumerate().skip(current as usize) {
            tx.execute_batch(migration).map_err(sql(&path))?;
            tx.execute_batch(&format!(
                "PRAGMA user_version = {}; PRAGMA application_id = {};",
                i + 1,
                APPLICATION_ID
            ))
            .map_err(sql(&path))?;
        }
        tx.commit().map_err(sql(&path))
    }

    /// The schema version of the open file.
    pub fn schema_version(&self) -> Result<i64> {
        self.user_version()
    }

    pub fn begin_experiment(&self, e: &NewExperiment<'_>) -> Result<ExperimentId> {
        self.conn
            .execute(
                "INSERT INTO experiments (kind, name, status, metron_version, argv, environment, \
                 config, host, pid) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![
                    e.kind,
                    e.name,
                    Status::Running.as_str(),
                    e.metron_version,
                    e.argv.to_string(),
                    e.environment.to_string(),
                    e.config.to_string(),
                    e.host,
                    std::process::id(),
                ],
            )
            .map_err(sql(&self.path))?;
        Ok(ExperimentId(self.conn.last_insert_rowid()))
    }

    pub fn add_benchmark(&self, exp: ExperimentId, b: &NewBenchmark<'_>) -> Result<BenchmarkId> {
        let params_json = serde_json::to_string(b.params).unwrap_or_else(|_| "[]".into());
        let argv_json = serde_json::to_string(b.argv).unwrap_or_else(|_| "[]".into());
        self.conn
            .execute(
                "INSERT INTO benchmarks (experiment_id, position, label, command, argv, params) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    exp.0,
                    b.position,
                    b.label,
                    b.command,
                    argv_json,
                    params_json
                ],
            )
            .map_err(sql(&self.path))?;
        Ok(BenchmarkId(self.conn.last_insert_rowid()))
    }

    /// Stores one run and its samples atomically: after this returns, the run survives a
    /// `kill -9` of this process.
    pub fn record_run(&mut self, run: &NewRun<'_>) -> Result<RunId> {
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql(&path))?;
        tx.execute(
            "INSERT INTO runs (benchmark_id, run_index, warmup, exit_code, signal, ok) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                run.benchmark.0,
                run.index,
                run.warmup,
                run.exit_code,
                run.signal,
                run.ok
            ],
        )
        .map_err(sql(&path))?;
        let id = tx.last_insert_rowid();
        {
            let mut insert = tx
                .prepare_cached(
                    "INSERT INTO samples (run_id, metric, value, unit) VALUES (?1, ?2, ?3, ?4)",
                )
                .map_err(sql(&path))?;
            for s in run.samples {
                insert
                    .execute(params![id, s.metric, s.value, s.unit])
                    .map_err(sql(&path))?;
            }
        }
        tx.commit().map_err(sql(&path))?;
        Ok(RunId(id))
    }

    pub fn finish_experiment(&self, id: ExperimentId, status: Status) -> Result<()> {
        self.conn
            .execute(
                "UPDATE experiments SET status = ?1, \
                 finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?2",
                params![status.as_str(), id.0],
            )
            .map_err(sql(&self.path))?;
        Ok(())
    }

    /// Experiments, newest first; `last` limits how many. Fails on the first row that cannot
    /// be decoded; [`Store::experiments_lenient`] lists around it.
    pub fn experiments(&self, last: Option<usize>) -> Result<Vec<ExperimentRow>> {
        let (rows, skipped) = self.experiments_lenient(last)?;
        match skipped.into_iter().next() {
            Some(e) => Err(e),
            None => Ok(rows),
        }
    }

    /// [`Store::experiments`], skipping rows that cannot be decoded (a corrupt JSON column)
    /// instead of failing the whole listing; the skipped ones come back as errors naming the
    /// experiment and the column.
    pub fn experiments_lenient(
        &self,
        last: Option<usize>,
    ) -> Result<(Vec<ExperimentRow>, Vec<StoreError>)> {
        let limit = last.map(|n| n as i64).unwrap_or(-1);
        let mut stmt = self
            .conn
            .prepare(&format!("{EXPERIMENT_SELECT} ORDER BY e.id DESC LIMIT ?1"))
            .map_err(sql(&self.path))?;
        let raws = stmt
            .query_map([limit], raw_experiment)
            .map_err(sql(&self.path))?
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(sql(&self.path))?;
        let (mut rows, mut skipped) = (Vec::new(), Vec::new());
        for raw in raws {
            let id = raw.id;
            match self.decode_experiment(raw) {
                Ok(r) => rows.push(r),
                Err(StoreError::Corrupt {
                    path,
                    column,
                    detail,
                }) => skipped.push(StoreError::Corrupt {
                    path,
                    column,
                    detail: format!("experiment {id}: {detail}"),
                }),
                Err(e) => skipped.push(e),
            }
        }
        Ok((rows, skipped))
    }

    pub fn experiment(&self, id: ExperimentId) -> Result<ExperimentRow> {
        let raw = self
            .conn
            .query_row(
                &format!("{EXPERIMENT_SELECT} WHERE e.id = ?1"),
                [id.0],
                raw_experiment,
            )
            .optional()
            .map_err(sql(&self.path))?;
        match raw {
            Some(raw) => self.decode_experiment(raw),
            None => Err(StoreError::NoSuchExperiment {
                path: self.path.clone(),
                id: id.0,
            }),
        }
    }

    pub fn benchmarks(&self, exp: ExperimentId) -> Result<Vec<BenchmarkRow>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, position, label, command, argv, params FROM benchmarks \
                 WHERE experiment_id = ?1 ORDER BY position",
            )
            .map_err(sql(&self.path))?;
        let rows = stmt
            .query_map([exp.0], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, u32>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                ))
            })
            .map_err(sql(&self.path))?;
        rows.map(|r| {
            let (id, position, label, command, argv, params) = r.map_err(sql(&self.path))?;
            Ok(BenchmarkRow {
                id: BenchmarkId(id),
                position,
                label,
                command,
                argv: self.decode_json("benchmarks.argv", &argv)?,
                params: self.decode_json("benchmarks.params", &params)?,
            })
        })
        .collect()
    }

    /// All runs of an experiment with their samples, in the order they were recorded.
    pub fn runs(&self, exp: ExperimentId) -> Result<Vec<RunRow>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT r.id, r.benchmark_id, r.run_index, r.warmup, r.started_at, r.exit_code, \
                 r.signal, r.ok FROM runs r JOIN benchmarks b ON b.id = r.benchmark_id \
                 WHERE b.experiment_id = ?1 ORDER BY r.id",
            )
            .map_err(sql(&self.path))?;
        let mut runs: Vec<RunRow> = stmt
            .query_map([exp.0], |r| {
                Ok(RunRow {
                    id: RunId(r.get(0)?),
                    benchmark: BenchmarkId(r.get(1)?),
                    index: r.get(2)?,
                    warmup: r.get(3)?,
                    started_at: r.get(4)?,
                    exit_code: r.get(5)?,
                    signal: r.get(6)?,
                    ok: r.get(7)?,
                    samples: Vec::new(),
                })
            })
            .map_err(sql(&self.path))?
            .collect::<rusqlite::Result<_>>()
            .map_err(sql(&self.path))?;
        let mut samples = self
            .conn
            .prepare("SELECT metric, value, unit FROM samples WHERE run_id = ?1 ORDER BY metric")
            .map_err(sql(&self.path))?;
        for run in &mut runs {
            run.samples = samples
                .query_map([run.id.0], |r| {
                    Ok(Sample {
                        metric: r.get(0)?,
                        value: r.get(1)?,
                        unit: r.get(2)?,
                    })
                })
                .map_err(sql(&self.path))?
                .collect::<rusqlite::Result<_>>()
                .map_err(sql(&self.path))?;
        }
        Ok(runs)
    }

    /// SQLite's own consistency check; `Ok` means the file is sound.
    pub fn integrity_check(&self) -> Result<()> {
        let verdict: String = self
            .conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .map_err(sql(&self.path))?;
        if verdict == "ok" {
            Ok(())
        } else {
            Err(StoreError::Corrupt {
                path: self.path.clone(),
                column: "(integrity_check)",
                detail: verdict,
            })
        }
    }

    fn decode_experiment(&self, raw: RawExperiment) -> Result<ExperimentRow> {
        Ok(ExperimentRow {
            id: ExperimentId(raw.id),
            kind: raw.kind,
            name: raw.name,
            status: raw.status,
            started_at: raw.started_at,
            finished_at: raw.finished_at,
            metron_version: raw.metron_version,
            argv: self.decode_json("experiments.argv", &raw.argv)?,
            environment: self.decode_json("experiments.environment", &raw.environment)?,
            config: self.decode_json("experiments.config", &raw.config)?,
            host: raw.host,
            pid: raw.pid,
            runs: raw.runs,
        })
    }

    fn decode_json<T: serde::de::DeserializeOwned>(
        &self,
        column: &'static str,
        text: &str,
    ) -> Result<T> {
        serde_json::from_str(text).map_err(|e| StoreError::Corrupt {
            path: self.path.clone(),
            column,
            detail: e.to_string(),
        })
    }
}

const EXPERIMENT_SELECT: &str = "SELECT e.id, e.kind, e.name, e.status, e.started_at, \
     e.finished_at, e.metron_version, e.argv, e.environment, e.config, e.host, e.pid, \
     (SELECT count(*) FROM runs r JOIN benchmarks b ON b.id = r.benchmark_id \
      WHERE b.experiment_id = e.id AND r.warmup = 0) FROM experiments e";

struct RawExperiment {
    id: i64,
    kind: String,
    name: Option<String>,
    status: String,
    started_at: String,
    finished_at: Option<String>,
    metron_version: String,
    argv: String,
    environment: String,
    config: String,
    host: Option<String>,
    pid: Option<i64>,
    runs: i64,
}

fn raw_experiment(r: &rusqlite::Row<'_>) -> rusqlite::Result<RawExperiment> {
    Ok(RawExperiment {
        id: r.get(0)?,
        kind: r.get(1)?,
        name: r.get(2)?,
        status: r.get(3)?,
        started_at: r.get(4)?,
        finished_at: r.get(5)?,
        metron_version: r.get(6)?,
        argv: r.get(7)?,
        environment: r.get(8)?,
        config: r.get(9)?,
        host: r.get(10)?,
        pid: r.get(11)?,
        runs: r.get(12)?,
    })
}

/// Builds a complete new store at a temporary name beside `path` and links it into place;
/// if another process got there first, its store is kept and ours discarded.
fn create_whole(path: &Path) -> Result<()> {
    let name = path
        .file_name()
        .map_or("metron.db".into(), |n| n.to_string_lossy().into_owned());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let tmp = path.with_file_name(format!(".{name}.new-{}-{nanos}", std::process::id()));
    let built = (|| {
        let conn = Connection::open(&tmp).map_err(sql(&tmp))?;
        let mut fresh = Store {
            conn,
            path: tmp.clone(),
        };
        fresh.migrate()
    })();
    let linked = built.and_then(|()| match std::fs::hard_link(&tmp, path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        // File systems without hard links: a rename, which only loses the (rare) race of two
        // creators to the later one.
        Err(_) => std::fs::rename(&tmp, path).map_err(|source| StoreError::CreateDir {
            path: path.to_path_buf(),
            source,
        }),
    });
    let _ = std::fs::remove_file(&tmp);
    linked
}

/// `file:` URI of a path, for SQLite's URI parameters.
fn file_uri(path: &Path) -> String {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut uri = String::from("file:");
    for b in abs.to_string_lossy().bytes() {
        match b {
            b'?' | b'#' | b'%' | 0x80.. => uri.push_str(&format!("%{b:02X}")),
            _ => uri.push(b as char),
        }
    }
    uri
}

fn sql(path: &Path) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
    move |source| StoreError::Sqlite {
        path: path.to_path_buf(),
        source,
    }
}

#[cfg(test)]
mod tests;
