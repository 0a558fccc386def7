// The database schema, as an ordered list of migrations: MIGRATIONS[i] takes a database from
// schema version i to i + 1. Never edit a released migration; append a new one.

/** SQL of each migration step. */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE schema_version (version INTEGER NOT NULL);

  -- One row per campaign; a resumed campaign keeps its row (sessions records each run).
  CREATE TABLE campaigns (
    id          INTEGER PRIMARY KEY,
    started_at  TEXT NOT NULL,
    ended_at    TEXT,
    end_reason  TEXT,
    config      TEXT NOT NULL,              -- JSON: option sets, limits, policy, jobs, limits
    compilers   TEXT NOT NULL,              -- JSON: [{name, command, realPath, family, version}]
    seed_start  INTEGER NOT NULL,
    max_tests   INTEGER,                    -- programs to test in all (NULL: no limit)
    programs    INTEGER NOT NULL DEFAULT 0, -- seeds finished (tested or discarded)
    discarded   INTEGER NOT NULL DEFAULT 0,
    tests       INTEGER NOT NULL DEFAULT 0, -- (program, configuration) pairs
    findings    INTEGER NOT NULL DEFAULT 0,
    internal    INTEGER NOT NULL DEFAULT 0,
    counters    TEXT NOT NULL DEFAULT '{}', -- JSON: outcome → count, plus "flaky"
    running_pid INTEGER                     -- set while a process runs the campaign
  );

  CREATE TABLE sessions (
    campaign_id INTEGER NOT NULL REFERENCES campaigns(id),
    started_at  TEXT NOT NULL,
    ended_at    TEXT,
    end_reason  TEXT,
    pid         INTEGER NOT NULL
  );

  -- Seeds whose program is finished; the primary key makes a repeated seed impossible.
  CREATE TABLE seeds (
    campaign_id INTEGER NOT NULL REFERENCES campaigns(id),
    seed        INTEGER NOT NULL,
    status      TEXT NOT NULL,              -- tested | discarded | error
    gen_ms      REAL,
    reason      TEXT,
    finished_at TEXT NOT NULL,
    PRIMARY KEY (campaign_id, seed)
  ) WITHOUT ROWID;

  -- One row per (program, configuration).
  CREATE TABLE tests (
    id               INTEGER PRIMARY KEY,
    campaign_id      INTEGER NOT NULL REFERENCES campaigns(id),
    seed             INTEGER NOT NULL,
    compiler         TEXT NOT NULL,
    compiler_version TEXT NOT NULL,
    options          TEXT NOT NULL,
    outcome          TEXT NOT NULL,
    duration_ms      REAL NOT NULL,
    bucket           TEXT,
    flaky            INTEGER NOT NULL DEFAULT 0,
    finding_id       TEXT
  );
  CREATE UNIQUE INDEX tests_unique ON tests(campaign_id, seed, compiler, options);

  CREATE TABLE findings (
    id               TEXT PRIMARY KEY,
    campaign_id      INTEGER NOT NULL REFERENCES campaigns(id),
    seed             INTEGER NOT NULL,
    outcome          TEXT NOT NULL,
    bucket           TEXT NOT NULL,         -- campaign-time key; triage may refine it
    compiler         TEXT NOT NULL,
    compiler_version TEXT NOT NULL,
    options          TEXT NOT NULL,
    command          TEXT NOT NULL,         -- JSON argv of the compile
    expected         TEXT NOT NULL,
    actual           TEXT NOT NULL,
    stderr           TEXT NOT NULL,
    dir              TEXT NOT NULL,         -- relative to the output folder
    created_at       TEXT NOT NULL
  );
  CREATE INDEX findings_bucket ON findings(bucket);

  -- Programs on which every configuration agrees against the interpreter: Kiln bugs.
  CREATE TABLE internal_cases (
    id          TEXT PRIMARY KEY,
    campaign_id INTEGER NOT NULL REFERENCES campaigns(id),
    seed        INTEGER NOT NULL,
    expected    TEXT NOT NULL,
    actual      TEXT NOT NULL,
    dir         TEXT NOT NULL,
    created_at  TEXT NOT NULL
  );
  `,
  // Triage and reduction results: the fingerprint groups findings by cause (NULL until triaged;
  // grouping falls back to the bucket), the reduced size and file come from the reducer.
  `
  ALTER TABLE findings ADD COLUMN fingerprint TEXT;
  ALTER TABLE findings ADD COLUMN reduced_lines INTEGER;
  ALTER TABLE findings ADD COLUMN reduced_file TEXT;  -- relative to the output folder when inside it
  CREATE INDEX findings_fingerprint ON findings(fingerprint);
  `,
  // Hostile-input hardening. Seeds are claimed in blocks, each block in one write transaction,
  // before they are tested: two campaigns sharing an output folder (or machines sharing the
  // database) never test one seed twice. Sessions record their process's start time and host, so
  // a session whose process died (kill -9) is recognised, even when its pid has been reused, and
  // marked ended. Findings record their program's size, and why they are kept, for the cap on
  // findings per bucket; what the cap drops is counted per bucket.
  `
  CREATE TABLE seed_claims (
    campaign_id INTEGER NOT NULL REFERENCES campaigns(id),
    first_seed  INTEGER NOT NULL,
    last_seed   INTEGER NOT NULL,           -- inclusive (2^63 - 1 is a seed; 2^63 is not an INTEGER)
    claimed_at  TEXT NOT NULL
  );
  CREATE INDEX seed_claims_first ON seed_claims(first_seed, last_seed);
  CREATE INDEX seed_claims_campaign ON seed_claims(campaign_id);
  -- What earlier campaigns tested counts as claimed by them.
  INSERT INTO seed_claims (campaign_id, first_seed, last_seed, claimed_at)
    SELECT c.id, MIN(c.seed_start, MIN(s.seed)), MAX(s.seed), c.started_at
    FROM campaigns c JOIN seeds s ON s.campaign_id = c.id GROUP BY c.id;

  ALTER TABLE sessions ADD COLUMN host TEXT;       -- NULL: written before hosts were recorded
  ALTER TABLE sessions ADD COLUMN pid_start TEXT;  -- the process's start time (/proc/PID/stat), when known

  ALTER TABLE findings ADD COLUMN size INTEGER;    -- bytes of the program's C files
  ALTER TABLE findings ADD COLUMN kept TEXT;       -- 'first' (one of the first N of its bucket) or 'smallest'
  CREATE TABLE bucket_overflow (
    bucket  TEXT PRIMARY KEY,
    dropped INTEGER NOT NULL DEFAULT 0           -- findings of this bucket counted but not stored
  );
  `,
  // Findings whose behaviour varied between runs, and hangs seen only under the short limit:
  // hang_status is 'suspected', 'confirmed' or 'cleared' for hangs checked in the background
  // (NULL for any other finding); behaviours holds every failing behaviour seen (JSON).
  `
  ALTER TABLE findings ADD COLUMN hang_status TEXT;
  ALTER TABLE findings ADD COLUMN nondeterministic INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE findings ADD COLUMN behaviours TEXT;
  `,
  // Known bugs (src/triage/known.ts): the note of the known bug a finding matched (NULL: none),
  // and the newer compiler of its family that compiled the same program without the bug.
  `
  ALTER TABLE findings ADD COLUMN known TEXT;
  ALTER TABLE findings ADD COLUMN known_fixed TEXT;
  `,
];
