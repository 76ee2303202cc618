#!/usr/bin/env python3
"""Databases and questions for the trained stand-in (docs/stand-in.md): small SQLite databases of
varied schemas, and templated questions with their gold SQL.

    python3 scripts/standin_data.py OUT [--schemas 240] [--heldout 40] [--seed 1]

writes
    OUT/dbs/<schema>.sqlite      one database per schema (3 to 12 tables, a few hundred rows at most)
    OUT/train.jsonl              questions over the training schemas
    OUT/heldout.jsonl            questions over the held-out schemas (whole schemas held out)

Each line is a `sqale eval` question ({"id", "db", "question", "gold_sql", "difficulty"}, `db`
relative to the file) plus what an expert needs to play it: "kind" and "plan" (the tables to
open, the join to find, the literal only `distinct_values` reveals).

A schema is a connected set of tables from one domain, with declared foreign keys (a
self-reference and a composite key among them where the domain has one), its table names drawn
from synonyms, its key style (`id` or `<table>_id`) and the spelling of its category values
(`In Transit`, `IN_TRANSIT`, `in-transit`, `in transit`) drawn per schema, so that a question's
literal ("in transit") matches the database only after `distinct_values`.

Deterministic: the same seed gives byte-identical files. Standard library only.
"""

import argparse
import json
import os
import random
import sqlite3
import sys
import tempfile

FIRST = ("Maria Ana Luis Jon Wei Amara Priya Omar Lena Hugo Sara Ivan Mei Tomas Nadia Kofi Elena Raj Yuki Noah "
         "Lucia Aziz Emma Pablo Ines Kenji Zara Felix Olga Mateo Chloe Ravi Hana Diego Leila Sven Ada Tariq Nora Bruno").split()
LAST = ("Lopez Chen Okafor Silva Novak Haddad Kim Rossi Patel Mendes Larsen Ivanova Tanaka Dubois Moreau Schmidt Garcia "
        "Kowalski Nguyen Costa Ahmed Berg Fischer Romero Sato Walsh Petrov Alves Nakamura Ortiz").split()
CITIES = ("Lisbon Porto Lyon Graz Turku Bergen Leeds Cork Ghent Bilbao Malmo Brno Split Parma Delft Aarhus Tartu "
          "Kaunas Poznan Cluj Varna Faro Nantes Basel Linz Riga Oulu Bari Vigo Gdansk").split()
ADJ = ("Blue Swift Golden Silver Quiet Bright Northern Little Grand Royal Green Crimson Hidden Lucky Iron Amber "
       "Coral Misty Wild Ancient").split()
NOUN = ("River Harbor Summit Garden Forest Bridge Valley Meadow Tower Lantern Falcon Orchard Canyon Island Mill "
        "Beacon Anchor Comet Willow Stone").split()
GOODS = ("Lamp Chair Kettle Backpack Helmet Notebook Blender Jacket Speaker Tent Bottle Drill Mirror Scarf Clock "
         "Camera Pillow Wallet Heater Router").split()
SUBJECTS = ("Algebra Biology Chemistry History Poetry Geology Physics Drawing Economics Music Statistics Ethics "
            "Astronomy Botany Robotics Latin Sculpture Logic Genetics Marketing").split()


def person(r):
    return f"{r.choice(FIRST)} {r.choice(LAST)}"


def company(r):
    return f"{r.choice(ADJ)} {r.choice(NOUN)} {r.choice(['Ltd', 'Group', 'Co', 'Works', 'Partners'])}"


def thing(r):
    return f"{r.choice(ADJ)} {r.choice(GOODS)}"


def title(r):
    return f"The {r.choice(ADJ)} {r.choice(NOUN)}"


def course(r):
    return f"{r.choice(['Intro to', 'Advanced', 'Applied', 'Modern'])} {r.choice(SUBJECTS)}"


def place(r):
    return f"{r.choice(CITIES)} {r.choice(['North', 'South', 'Central', 'East', 'West', 'Park', 'Port'])}"


def city(r):
    return r.choice(CITIES)


LABELS = {"person": person, "company": company, "thing": thing, "title": title, "course": course,
          "place": place, "city": city}


def T(key, names, label=None, cats=(), nums=(), fks=(), self_ref=None, rows=(10, 30), junction=None, composite=None):
    """A table template: `names` are (plural, singular) synonyms; `label` (column, kind) names a
    row; `cats` (column, values) and `nums` (column, words, low, high) are filterable columns;
    `fks` the templates it references; `self_ref` a column referencing its own table;
    `junction` two templates joined by a composite primary key; `composite` a junction template
    referenced by a composite foreign key."""
    return dict(key=key, names=names, label=label, cats=list(cats), nums=list(nums), fks=list(fks),
                self_ref=self_ref, rows=rows, junction=junction, composite=composite)


DOMAINS = {
    "shop": [
        T("payments", [("payments", "payment"), ("transactions", "transaction")], None,
          cats=[("method", ["credit card", "bank transfer", "cash"])], nums=[("amount", "amount", 5, 2500)],
          fks=["orders"], rows=(40, 150)),
        T("shipments", [("shipments", "shipment"), ("deliveries", "delivery")], None,
          cats=[("carrier", ["road freight", "air mail", "courier"])], nums=[("weight_kg", "weight", 1, 80)],
          fks=["orders", "warehouses"], rows=(30, 120)),
        T("warehouses", [("warehouses", "warehouse"), ("depots", "depot")], ("name", "place"),
          nums=[("capacity", "capacity", 500, 20000)], rows=(3, 7)),
        T("customers", [("customers", "customer"), ("clients", "client"), ("buyers", "buyer")], ("name", "person"),
          cats=[("segment", ["retail", "wholesale", "online only"])], nums=[("credit_limit", "credit limit", 100, 9000)],
          fks=["stores"], rows=(20, 40)),
        T("stores", [("stores", "store"), ("shops", "shop"), ("outlets", "outlet")], ("name", "place"),
          cats=[("region", ["north", "south", "coastal"])], nums=[("floor_area", "floor area", 80, 2000)], rows=(4, 9)),
        T("products", [("products", "product"), ("items", "item"), ("articles", "article")], ("name", "thing"),
          cats=[("colour", ["dark blue", "red", "light grey", "black"])], nums=[("price", "price", 3, 900)],
          fks=["categories", "suppliers"], rows=(20, 45)),
        T("categories", [("categories", "category"), ("departments", "department")], ("name", "title"),
          self_ref="parent_id", rows=(5, 10)),
        T("suppliers", [("suppliers", "supplier"), ("vendors", "vendor")], ("name", "company"),
          cats=[("country", ["portugal", "france", "south korea", "brazil"])], rows=(5, 12)),
        T("orders", [("orders", "order"), ("purchases", "purchase")], None,
          cats=[("status", ["in transit", "delivered", "cancelled", "on hold"])], nums=[("freight", "freight", 1, 300)],
          fks=["customers", "employees"], rows=(60, 150)),
        T("employees", [("employees", "employee"), ("staff", "staff member")], ("full_name", "person"),
          cats=[("role", ["cashier", "store manager", "stock clerk"])], nums=[("salary", "salary", 1200, 6000)],
          fks=["stores"], self_ref="manager_id", rows=(8, 20)),
        T("order_items", [("order_items", "order item"), ("order_lines", "order line")], None,
          nums=[("quantity", "quantity", 1, 12)], junction=["orders", "products"], rows=(80, 250)),
        T("returns", [("returns", "return"), ("refunds", "refund")], None,
          cats=[("reason", ["damaged", "wrong size", "changed mind"])], composite="order_items", rows=(8, 25)),
    ],
    "school": [
        T("exams", [("exams", "exam"), ("tests", "test")], ("title", "course"),
          cats=[("exam_type", ["written", "oral", "practical"])], nums=[("max_score", "maximum score", 20, 100)],
          fks=["courses", "rooms"], rows=(10, 30)),
        T("scholarships", [("scholarships", "scholarship"), ("bursaries", "bursary")], ("name", "title"),
          nums=[("amount", "amount", 500, 8000)], fks=["students"], rows=(5, 15)),
        T("events", [("events", "event"), ("activities", "activity")], ("name", "title"),
          cats=[("event_kind", ["concert", "field trip", "match"])], fks=["clubs", "rooms"], rows=(6, 20)),
        T("students", [("students", "student"), ("pupils", "pupil"), ("learners", "learner")], ("name", "person"),
          cats=[("year_group", ["first year", "second year", "final year"])], nums=[("age", "age", 16, 30)],
          fks=["houses"], rows=(25, 50)),
        T("houses", [("houses", "house"), ("dormitories", "dormitory")], ("name", "title"), rows=(3, 6)),
        T("teachers", [("teachers", "teacher"), ("instructors", "instructor"), ("lecturers", "lecturer")],
          ("full_name", "person"), cats=[("contract", ["full time", "part time", "visiting"])],
          nums=[("years_experience", "years of experience", 1, 35)], fks=["departments"], self_ref="mentor_id",
          rows=(8, 18)),
        T("departments", [("departments", "department"), ("faculties", "faculty")], ("name", "title"),
          nums=[("budget", "budget", 10000, 90000)], rows=(3, 7)),
        T("courses", [("courses", "course"), ("classes", "class"), ("modules", "module")], ("title", "course"),
          cats=[("level", ["beginner", "intermediate", "advanced"])], nums=[("credits", "credits", 2, 12)],
          fks=["teachers", "rooms"], rows=(10, 25)),
        T("rooms", [("rooms", "room"), ("classrooms", "classroom")], ("name", "place"),
          nums=[("capacity", "capacity", 10, 120)], rows=(5, 12)),
        T("enrollments", [("enrollments", "enrollment"), ("registrations", "registration")], None,
          cats=[("term", ["spring term", "autumn term"])], junction=["students", "courses"], rows=(60, 200)),
        T("grades", [("grades", "grade"), ("marks", "mark")], None,
          cats=[("letter", ["top mark", "pass", "fail"])], nums=[("score", "score", 0, 100)],
          composite="enrollments", rows=(30, 120)),
        T("clubs", [("clubs", "club"), ("societies", "society")], ("name", "title"),
          cats=[("meeting_day", ["monday", "wednesday", "friday"])], fks=["teachers"], rows=(4, 10)),
    ],
    "clinic": [
        T("nurses", [("nurses", "nurse"), ("carers", "carer")], ("full_name", "person"),
          cats=[("shift", ["day shift", "night shift", "weekend"])], fks=["wards"], self_ref="lead_nurse_id",
          rows=(8, 25)),
        T("lab_tests", [("lab_tests", "lab test"), ("tests", "test")], ("name", "thing"),
          cats=[("sample", ["blood", "urine", "saliva"])], nums=[("price", "price", 5, 400)], rows=(6, 15)),
        T("test_orders", [("test_orders", "test order"), ("lab_orders", "lab order")], None,
          cats=[("result", ["normal", "abnormal", "pending review"])], fks=["appointments", "lab_tests"], rows=(30, 100)),
        T("rooms", [("rooms", "room"), ("bays", "bay")], ("name", "place"), nums=[("floor", "floor", 0, 9)],
          fks=["wards"], rows=(6, 20)),
        T("patients", [("patients", "patient"), ("clients", "client")], ("name", "person"),
          cats=[("blood_type", ["type a", "type b", "type o", "type ab"])], nums=[("age", "age", 1, 95)],
          fks=["doctors", "insurers"], rows=(25, 60)),
        T("doctors", [("doctors", "doctor"), ("physicians", "physician")], ("full_name", "person"),
          cats=[("specialty", ["general practice", "cardiology", "paediatrics", "dermatology"])],
          nums=[("years_practice", "years of practice", 1, 40)], fks=["wards"], self_ref="supervisor_id", rows=(6, 15)),
        T("wards", [("wards", "ward"), ("units", "unit")], ("name", "place"), nums=[("beds", "beds", 4, 40)],
          rows=(3, 8)),
        T("appointments", [("appointments", "appointment"), ("visits", "visit"), ("consultations", "consultation")],
          None, cats=[("outcome", ["follow up", "discharged", "referred"])], nums=[("duration_minutes", "duration", 5, 90)],
          fks=["patients", "doctors"], rows=(60, 160)),
        T("medications", [("medications", "medication"), ("drugs", "drug"), ("medicines", "medicine")],
          ("name", "thing"), cats=[("form", ["tablet", "syrup", "injection"])], nums=[("unit_cost", "unit cost", 1, 200)],
          rows=(8, 20)),
        T("prescriptions", [("prescriptions", "prescription")], None, nums=[("days", "days", 1, 60)],
          junction=["appointments", "medications"], rows=(40, 150)),
        T("refills", [("refills", "refill")], None, cats=[("channel", ["in person", "by post", "online"])],
          composite="prescriptions", rows=(8, 40)),
        T("insurers", [("insurers", "insurer"), ("insurance_companies", "insurance company")], ("name", "company"),
          cats=[("plan_type", ["basic", "premium", "family plan"])], rows=(3, 8)),
    ],
    "library": [
        T("events", [("events", "event"), ("readings", "reading")], ("name", "title"),
          cats=[("audience", ["children", "adults", "everyone"])], nums=[("seats", "seats", 10, 200)],
          fks=["branches", "authors"], rows=(6, 20)),
        T("staff", [("staff", "staff member"), ("librarians", "librarian")], ("full_name", "person"),
          cats=[("duty", ["front desk", "archive", "cataloguing"])], fks=["branches"], rows=(6, 18)),
        T("fines", [("fines", "fine"), ("penalties", "penalty")], None, nums=[("amount", "amount", 1, 60)],
          cats=[("paid", ["paid in full", "unpaid", "waived"])], fks=["loans"], rows=(10, 40)),
        T("series", [("series", "series"), ("collections", "collection")], ("name", "title"), rows=(3, 8)),
        T("authors", [("authors", "author"), ("writers", "writer")], ("name", "person"),
          cats=[("nationality", ["irish", "chilean", "japanese", "nigerian"])], nums=[("birth_year", "birth year", 1900, 1995)],
          rows=(10, 25)),
        T("books", [("books", "book"), ("titles", "title"), ("volumes", "volume")], ("title", "title"),
          cats=[("genre", ["science fiction", "mystery", "poetry", "history"])], nums=[("pages", "number of pages", 80, 900)],
          fks=["authors", "publishers", "series"], rows=(25, 60)),
        T("publishers", [("publishers", "publisher"), ("imprints", "imprint")], ("name", "company"),
          cats=[("country", ["spain", "canada", "kenya"])], rows=(4, 10)),
        T("members", [("members", "member"), ("patrons", "patron"), ("readers", "reader")], ("name", "person"),
          cats=[("membership", ["standard", "student", "senior citizen"])], nums=[("age", "age", 8, 90)],
          fks=["branches"], self_ref="referred_by", rows=(20, 50)),
        T("branches", [("branches", "branch"), ("libraries", "library")], ("name", "place"),
          nums=[("opening_hours", "weekly opening hours", 20, 70)], rows=(3, 7)),
        T("loans", [("loans", "loan"), ("checkouts", "checkout")], None,
          cats=[("state", ["returned", "overdue", "on loan"])], nums=[("days_kept", "days kept", 1, 60)],
          fks=["books", "members"], rows=(60, 180)),
        T("reviews", [("reviews", "review"), ("ratings", "rating")], None, nums=[("stars", "stars", 1, 5)],
          junction=["members", "books"], rows=(30, 120)),
        T("review_flags", [("review_flags", "review flag")], None, cats=[("flag", ["spam", "spoiler", "off topic"])],
          composite="reviews", rows=(5, 20)),
    ],
    "travel": [
        T("aircraft", [("aircraft", "aircraft"), ("planes", "plane")], ("model", "thing"),
          nums=[("seats", "seats", 50, 400)], fks=["airlines"], rows=(6, 20)),
        T("lounges", [("lounges", "lounge")], ("name", "place"), nums=[("seats", "seats", 20, 300)],
          fks=["airports"], rows=(3, 10)),
        T("hotels", [("hotels", "hotel"), ("inns", "inn")], ("name", "company"),
          cats=[("rating", ["three star", "four star", "five star"])], nums=[("rooms", "rooms", 10, 400)],
          fks=["airports"], rows=(5, 15)),
        T("stays", [("stays", "stay"), ("hotel_bookings", "hotel booking")], None, nums=[("nights", "nights", 1, 14)],
          fks=["hotels", "passengers"], rows=(20, 80)),
        T("complaints", [("complaints", "complaint")], None,
          cats=[("topic", ["lost bag", "late flight", "rude staff"])], fks=["passengers", "flights"], rows=(10, 40)),
        T("airports", [("airports", "airport"), ("airfields", "airfield")], ("city", "city"),
          cats=[("size", ["regional", "international", "private"])], nums=[("runways", "runways", 1, 5)], rows=(6, 15)),
        T("airlines", [("airlines", "airline"), ("carriers", "carrier")], ("name", "company"),
          cats=[("alliance", ["star group", "sky circle", "independent"])], fks=["airports"], rows=(4, 9)),
        T("flights", [("flights", "flight"), ("routes", "route")], None,
          cats=[("flight_status", ["on time", "delayed", "cancelled"])], nums=[("distance_km", "distance", 200, 9000)],
          fks=["airlines", "airports"], rows=(40, 120)),
        T("passengers", [("passengers", "passenger"), ("travellers", "traveller")], ("name", "person"),
          cats=[("tier", ["economy plus", "gold", "basic"])], nums=[("age", "age", 1, 90)], self_ref="companion_id",
          rows=(25, 60)),
        T("bookings", [("bookings", "booking"), ("reservations", "reservation"), ("tickets", "ticket")], None,
          cats=[("cabin", ["economy", "business", "first class"])], nums=[("fare", "fare", 40, 3000)],
          junction=["flights", "passengers"], rows=(60, 200)),
        T("baggage", [("baggage", "bag"), ("luggage", "piece of luggage")], None, nums=[("weight_kg", "weight", 2, 32)],
          composite="bookings", rows=(20, 80)),
        T("crew", [("crew", "crew member"), ("crew_members", "crew member")], ("full_name", "person"),
          cats=[("position", ["pilot", "first officer", "cabin crew"])], fks=["airlines"], rows=(10, 30)),
    ],
    "music": [
        T("concerts", [("concerts", "concert"), ("gigs", "gig"), ("shows", "show")], ("name", "title"),
          cats=[("venue_type", ["arena", "club", "open air"])], nums=[("tickets_sold", "tickets sold", 50, 20000)],
          fks=["artists", "venues"], rows=(10, 40)),
        T("venues", [("venues", "venue"), ("halls", "hall")], ("name", "place"), nums=[("capacity", "capacity", 100, 30000)],
          rows=(4, 10)),
        T("awards", [("awards", "award"), ("prizes", "prize")], ("name", "title"), nums=[("year", "year", 1970, 2024)],
          fks=["albums"], rows=(5, 15)),
        T("producers", [("producers", "producer"), ("engineers", "engineer")], ("name", "person"),
          cats=[("studio", ["studio one", "north room", "home studio"])], rows=(4, 12)),
        T("artists", [("artists", "artist"), ("musicians", "musician"), ("performers", "performer")], ("name", "person"),
          cats=[("country", ["ghana", "sweden", "mexico", "japan"])], nums=[("debut_year", "debut year", 1960, 2022)],
          fks=["labels"], rows=(10, 25)),
        T("labels", [("labels", "label"), ("record_labels", "record label")], ("name", "company"), rows=(3, 8)),
        T("albums", [("albums", "album"), ("records", "record"), ("releases", "release")], ("title", "title"),
          cats=[("format", ["vinyl", "compact disc", "digital only"])], nums=[("release_year", "release year", 1965, 2024)],
          fks=["artists", "producers"], rows=(20, 50)),
        T("genres", [("genres", "genre"), ("styles", "style")], ("name", "title"), self_ref="parent_genre_id",
          rows=(4, 10)),
        T("tracks", [("tracks", "track"), ("songs", "song")], ("title", "title"),
          cats=[("mood", ["upbeat", "mellow", "dark"])], nums=[("seconds", "length in seconds", 90, 600)],
          fks=["albums", "genres"], rows=(40, 150)),
        T("playlists", [("playlists", "playlist"), ("mixes", "mix")], ("name", "title"),
          cats=[("visibility", ["public", "private", "friends only"])], fks=["listeners"], rows=(5, 15)),
        T("listeners", [("listeners", "listener"), ("subscribers", "subscriber")], ("name", "person"),
          cats=[("plan", ["free tier", "premium", "family"])], nums=[("age", "age", 13, 80)], rows=(15, 40)),
        T("playlist_tracks", [("playlist_tracks", "playlist track"), ("playlist_entries", "playlist entry")], None,
          nums=[("position", "position", 1, 40)], junction=["playlists", "tracks"], rows=(40, 150)),
    ],
}


def spell(value, style):
    """A category value as this schema stores it."""
    words = value.split()
    if style == "title":
        return " ".join(w.capitalize() for w in words)
    if style == "upper":
        return "_".join(w.upper() for w in words)
    if style == "hyphen":
        return "-".join(words)
    return value


class Schema:
    """One database: the chosen tables with their names, keys and rows."""

    def __init__(self, sid, domain, keys, r):
        self.id, self.domain, self.r = sid, domain, r
        spec = {t["key"]: t for t in DOMAINS[domain]}
        self.t = {}
        for k in keys:
            plural, singular = r.choice(spec[k]["names"])
            self.t[k] = dict(spec[k], name=plural, singular=singular)
        self.key_style = r.choice(["id", "named"])
        self.styles = {}
        for k, t in self.t.items():
            for col, _ in t["cats"]:
                self.styles[(k, col)] = r.choice(["title", "upper", "hyphen", "plain"])
        self.rows = {}

    def pk(self, k):
        """Primary-key column of a (non-junction) table."""
        return "id" if self.key_style == "id" else f"{self.t[k]['singular'].replace(' ', '_')}_id"

    def fk_col(self, parent):
        return f"{self.t[parent]['singular'].replace(' ', '_')}_id"

    def key_cols(self, k):
        """The key columns of table `k` (two for a junction)."""
        t = self.t[k]
        if t["junction"]:
            return [self.fk_col(p) for p in t["junction"]]
        return [self.pk(k)]

    def ddl(self):
        out = []
        for k in order(self.t):
            t, cols, cons = self.t[k], [], []
            if t["junction"]:
                a, b = t["junction"]
                for p in (a, b):
                    cols.append(f"{self.fk_col(p)} INTEGER NOT NULL REFERENCES {self.t[p]['name']}({self.pk(p)})")
                cons.append(f"PRIMARY KEY ({self.fk_col(a)}, {self.fk_col(b)})")
            else:
                cols.append(f"{self.pk(k)} INTEGER PRIMARY KEY")
            if t["composite"]:
                j = t["composite"]
                jcols = self.key_cols(j)
                for c in jcols:
                    cols.append(f"{c} INTEGER NOT NULL")
                cons.append(f"FOREIGN KEY ({', '.join(jcols)}) REFERENCES {self.t[j]['name']}({', '.join(jcols)})")
            if t["label"]:
                cols.append(f"{t['label'][0]} TEXT NOT NULL")
            for p in t["fks"]:
                if p in self.t:
                    cols.append(f"{self.fk_col(p)} INTEGER REFERENCES {self.t[p]['name']}({self.pk(p)})")
            if t["self_ref"]:
                cols.append(f"{t['self_ref']} INTEGER REFERENCES {t['name']}({self.pk(k)})")
            for col, _ in t["cats"]:
                cols.append(f"{col} TEXT NOT NULL")
            for col, _, lo, hi in t["nums"]:
                cols.append(f"{col} INTEGER NOT NULL")
            out.append(f"CREATE TABLE {t['name']} (\n  " + ",\n  ".join(cols + cons) + "\n)")
        return out

    def fill(self):
        """Rows for every table, parents first; labels unique within a table."""
        r = self.r
        for k in order(self.t):
            t = self.t[k]
            n = r.randint(*t["rows"])
            rows = []
            if t["junction"]:
                a, b = t["junction"]
                pairs = {(r.randint(1, len(self.rows[a])), r.randint(1, len(self.rows[b]))) for _ in range(n)}
                keys = sorted(pairs)
            elif t["composite"]:
                parent = self.rows[t["composite"]]
                keys = [(i + 1,) + tuple(r.choice(parent)["_key"]) for i in range(min(n, len(parent)))]
            else:
                keys = [(i + 1,) for i in range(n)]
            labels = set()
            for i, key in enumerate(keys):
                row = {"_key": key}
                if t["label"]:
                    make = LABELS[t["label"][1]]
                    for _ in range(50):
                        v = make(r)
                        if v not in labels:
                            break
                    else:
                        v = f"{make(r)} {i + 1}"
                    labels.add(v)
                    row[t["label"][0]] = v
                for p in t["fks"]:
                    if p in self.t:
                        row[self.fk_col(p)] = r.randint(1, len(self.rows[p]))
                if t["self_ref"]:
                    row[t["self_ref"]] = None if i < 2 or r.random() < 0.3 else r.randint(1, i)
                for col, values in t["cats"]:
                    row[col] = spell(r.choice(values), self.styles[(k, col)])
                for col, _, lo, hi in t["nums"]:
                    row[col] = r.randint(lo, hi)
                rows.append(row)
            self.rows[k] = rows

    def write(self, path):
        tmp = path + ".tmp"
        if os.path.exists(tmp):
            os.remove(tmp)
        con = sqlite3.connect(tmp)
        con.execute("PRAGMA foreign_keys = ON")
        for stmt in self.ddl():
            con.execute(stmt)
        for k in order(self.t):
            t = self.t[k]
            for row in self.rows[k]:
                names = list(self.key_cols(k)) if not t["composite"] else [self.pk(k)] + self.key_cols(t["composite"])
                values = list(row["_key"])
                for c, v in row.items():
                    if c != "_key":
                        names.append(c)
                        values.append(v)
                con.execute(f"INSERT INTO {t['name']} ({', '.join(names)}) VALUES ({', '.join('?' * len(values))})",
                            values)
        con.commit()
        con.close()
        os.replace(tmp, path)


def order(tables):
    """Table keys with every referenced table before its referrers."""
    done, out = set(), []

    def visit(k):
        if k in done:
            return
        done.add(k)
        for p in tables[k]["fks"] + needs(tables, k):
            if p in tables:
                visit(p)
        out.append(k)

    for k in tables:
        visit(k)
    return out


def needs(spec, k):
    """Templates table `k` cannot exist without (junction ends, the composite's junction)."""
    t = spec[k]
    return list(t["junction"] or []) + ([t["composite"]] if t["composite"] else [])


def pick_tables(domain, r):
    """A connected set of 3 to 12 templates of `domain`."""
    spec = {t["key"]: t for t in DOMAINS[domain]}
    target = r.randint(3, min(12, len(spec)))
    chosen = []

    def add(k):
        if k in chosen:
            return
        for p in needs(spec, k):
            add(p)
        chosen.append(k)

    add(r.choice([k for k in spec if not needs(spec, k)]))
    while len(chosen) < target:
        linked = [k for k in spec if k not in chosen and (
            any(p in chosen for p in spec[k]["fks"] + needs(spec, k)) or any(k in spec[c]["fks"] for c in chosen))]
        if not linked:
            break
        add(r.choice(linked))
    return chosen


def words(name):
    return name.replace("_", " ")


def questions(s):
    """Templated questions over schema `s`, with gold SQL and the expert's plan."""
    r, out = s.r, []
    tables = [k for k in s.t]
    named = [k for k in tables if s.t[k]["label"]]

    def q(kind, text, sql, difficulty, plan):
        out.append(dict(kind=kind, question=text, gold_sql=sql, difficulty=difficulty, plan=plan))

    for k in r.sample(tables, min(2, len(tables))):
        t = s.t[k]
        q("count", f"How many {words(t['name'])} are there?", f"SELECT COUNT(*) FROM {t['name']}", "simple",
          dict(tables=[t["name"]]))
    for k in tables:
        t = s.t[k]
        for col, values in t["cats"]:
            present = sorted({row[col] for row in s.rows[k]})
            stored = r.choice(present)
            said = next(v for v in values if spell(v, s.styles[(k, col)]) == stored)
            q("filter", f"How many {words(t['name'])} have {words(col)} {said}?",
              f"SELECT COUNT(*) FROM {t['name']} WHERE {col} = '{stored}'", "simple",
              dict(tables=[t["name"]], literal=dict(table=t["name"], column=col, value=stored, said=said)))
            q("group", f"How many {words(t['name'])} are there for each {words(col)}?",
              f"SELECT {col}, COUNT(*) FROM {t['name']} GROUP BY {col} ORDER BY COUNT(*) DESC", "moderate",
              dict(tables=[t["name"]]))
    for k in named:
        t = s.t[k]
        for col, phrase, _, _ in t["nums"]:
            values = sorted(row[col] for row in s.rows[k])
            if len(values) > 1 and values[-1] != values[-2]:
                q("superlative", f"Which {t['singular']} has the highest {phrase}?",
                  f"SELECT {t['label'][0]} FROM {t['name']} ORDER BY {col} DESC LIMIT 1", "moderate",
                  dict(tables=[t["name"]]))
            if len(values) > 1 and values[0] != values[1]:
                q("superlative", f"Which {t['singular']} has the lowest {phrase}?",
                  f"SELECT {t['label'][0]} FROM {t['name']} ORDER BY {col} ASC LIMIT 1", "moderate",
                  dict(tables=[t["name"]]))
    # Joins along a declared foreign key child → parent (parent named).
    edges = [(c, p) for c in tables for p in s.t[c]["fks"] + (s.t[c]["junction"] or []) if p in s.t and s.t[p]["label"]]
    for c, p in edges:
        ct, pt = s.t[c], s.t[p]
        fk, pk, plabel = s.fk_col(p), s.pk(p), pt["label"][0]
        parents = sorted({row[fk] for row in s.rows[c] if row.get(fk)} if not ct["junction"] else
                         {row["_key"][ct["junction"].index(p)] for row in s.rows[c]})
        if not parents:
            continue
        who = s.rows[p][r.choice(parents) - 1][plabel].replace("'", "''")
        join = f"{ct['name']} AS c JOIN {pt['name']} AS p ON c.{fk} = p.{pk}"
        plan = dict(tables=[ct["name"], pt["name"]], join=[ct["name"], pt["name"]])
        if ct["label"]:
            q("join", f"List the {words(ct['label'][0])}s of the {words(ct['name'])} of the {pt['singular']} {who}.",
              f"SELECT c.{ct['label'][0]} FROM {join} WHERE p.{plabel} = '{who}'", "moderate", plan)
        else:
            q("join", f"How many {words(ct['name'])} does the {pt['singular']} {who} have?",
              f"SELECT COUNT(*) FROM {join} WHERE p.{plabel} = '{who}'", "moderate", plan)
        q("group_join", f"For each {pt['singular']}, how many {words(ct['name'])} are there? Give the {pt['singular']}'s "
          f"{words(plabel)} and the count.",
          f"SELECT p.{plabel}, COUNT(*) FROM {join} GROUP BY p.{pk} ORDER BY COUNT(*) DESC", "moderate", plan)
    # Two joins: grandchild → child → parent (parent named).
    for g, c in [(g, c) for g in tables for c in s.t[g]["fks"] + (s.t[g]["junction"] or []) if c in s.t]:
        for p in [p for p in s.t[c]["fks"] if p in s.t and s.t[p]["label"] and p != g]:
            gt, ct, pt = s.t[g], s.t[c], s.t[p]
            plabel = pt["label"][0]
            who = r.choice(s.rows[p])[plabel].replace("'", "''")
            q("join2", f"How many {words(gt['name'])} are linked to the {pt['singular']} {who}?",
              f"SELECT COUNT(*) FROM {gt['name']} AS g JOIN {ct['name']} AS c ON g.{s.fk_col(c)} = c.{s.pk(c)} "
              f"JOIN {pt['name']} AS p ON c.{s.fk_col(p)} = p.{s.pk(p)} WHERE p.{plabel} = '{who}'", "challenging",
              dict(tables=[gt["name"], ct["name"], pt["name"]], join=[gt["name"], pt["name"]]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--schemas", type=int, default=240)
    ap.add_argument("--heldout", type=int, default=40)
    ap.add_argument("--per-schema", type=int, default=14, help="questions kept per schema at most")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.heldout >= a.schemas:
        sys.exit(f"--heldout {a.heldout} leaves no training schema; pass fewer than --schemas {a.schemas}")
    os.makedirs(os.path.join(a.out, "dbs"), exist_ok=True)
    master = random.Random(a.seed)
    lines = {"train": [], "heldout": []}
    for i in range(a.schemas):
        r = random.Random(master.getrandbits(64))
        domain = sorted(DOMAINS)[i % len(DOMAINS)]
        sid = f"s{i:03d}_{domain}"
        keys = pick_tables(domain, r)
        while len(keys) < 3:
            keys = pick_tables(domain, r)
        s = Schema(sid, domain, keys, r)
        s.fill()
        path = os.path.join(a.out, "dbs", f"{sid}.sqlite")
        s.write(path)
        qs = questions(s)
        r.shuffle(qs)
        split = "heldout" if i >= a.schemas - a.heldout else "train"
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        for n, item in enumerate(qs[: a.per_schema]):
            rows = con.execute(item["gold_sql"]).fetchall()
            if not rows or rows == [(0,)]:
                continue
            lines[split].append(dict(id=f"{sid}_q{n:02d}", db=f"dbs/{sid}.sqlite", **item))
        con.close()
        if (i + 1) % 40 == 0 or i + 1 == a.schemas:
            print(f"{i + 1}/{a.schemas} schemas", file=sys.stderr, flush=True)
    for split, items in lines.items():
        fd, tmp = tempfile.mkstemp(dir=a.out, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            for item in items:
                f.write(json.dumps(item) + "\n")
        os.replace(tmp, os.path.join(a.out, f"{split}.jsonl"))
        print(f"{split}: {len(items)} questions", file=sys.stderr)


if __name__ == "__main__":
    main()
