//! Versioned schema migrations. `PRAGMA user_version` holds how many of them a file has had;
//! `PRAGMA application_id` marks the file as a metron store so that no other database is ever
//! written to by mistake.

/// "MTRN": written into the SQLite header of every metron store.
pub const APPLICATION_ID: i32 = 0x4D54_524E;

/// Migration `i` takes a store from version `i` to `i + 1`. Append only: a migration that has
/// shipped is never edited, because stores in the wild have already run it.
pub const MIGRATIONS: &[&str] = &[
    // 1: experiments, the benchmarks (command + parameter values) they consist of, runs, samples.
    // Later kinds of experiment (tuning units, probe profiles) add their own tables and point at
    // `experiments(id)`; the `kind` column says which tables describe an experiment.
    r#"
    CREATE TABLE experiments (
        id             INTEGER PRIMARY KEY,
        kind           TEXT    NOT NULL,
        name           TEXT,
        status         TEXT    NOT NULL,
        started_at     TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        finished_at    TEXT,
        metron_version TEXT    NOT NULL,
        argv           TEXT    NOT NULL,
        environment    TEXT    NOT NULL,
        config         TEXT    NOT NULL,
        host           TEXT,
        pid            INTEGER
    );
    CREATE TABLE benchmarks (
        id            INTEGER PRIMARY KEY,
        experiment_id INTEGER NOT NULL REFERENCES experiments(id),
        position      INTEGER NOT NULL,
        label         TEXT    NOT NULL,
        command       TEXT    NOT NULL,
        argv          TEXT    NOT NULL,
        params        TEXT    NOT NULL,
        UNIQUE (experiment_id, position)
    );
    CREATE TABLE runs (
        id           INTEGER PRIMARY KEY,
        benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id),
        run_index    INTEGER NOT NULL,
        warmup       INTEGER NOT NULL,
        started_at   TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        exit_code    INTEGER,
        signal       INTEGER,
        ok           INTEGER NOT NULL
    );
    CREATE TABLE samples (
        run_id INTEGER NOT NULL REFERENCES runs(id),
        metric TEXT    NOT NULL,
        value  REAL    NOT NULL,
        unit   TEXT    NOT NULL,
        PRIMARY KEY (run_id, metric)
    ) WITHOUT ROWID;
    CREATE INDEX benchmarks_by_experiment ON benchmarks(experiment_id);
    CREATE INDEX runs_by_benchmark ON runs(benchmark_id);
    "#,
    // 2: metron tune (002 Ch. 3-4). One row per unit of a unit library (identified by its
    // absolute path), written as the unit finishes; the folder is the source of truth and the
    // consistency check at start re-inserts what a kill -9 kept from reaching the store.
    // Generations hold the convergence data of each GA repeat (002 Listing 4.7).
    r#"
    CREATE TABLE tune_units (
        id            INTEGER PRIMARY KEY,
        library       TEXT    NOT NULL,
        key           TEXT    NOT NULL,
        params        TEXT    NOT NULL,
        status        TEXT    NOT NULL,
        fitness       REAL,
        failed_stage  TEXT,
        reason        TEXT,
        stderr_tail   TEXT,
        experiment_id INTEGER REFERENCES experiments(id),
        finished_at   TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        UNIQUE (library, key)
    );
    CREATE TABLE tune_generations (
        experiment_id INTEGER NOT NULL REFERENCES experiments(id),
        repeat        INTEGER NOT NULL,
        generation    INTEGER NOT NULL,
        unique_units  INTEGER NOT NULL,
        best_fitness  REAL,
        best_key      TEXT,
        PRIMARY KEY (experiment_id, repeat, generation)
    ) WITHOUT ROWID;
    "#,
];

/// The schema version this build of metron writes.
pub fn latest_version() -> i64 {
    MIGRATIONS.len() as i64
}
