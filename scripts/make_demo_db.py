#!/usr/bin/env python3
"""Build the deterministic sqale demo database (a wholesale/retail supply chain).

Usage: python3 scripts/make_demo_db.py [OUTPUT]   (default: data/demo.sqlite
relative to the repository root)

Standard library only. The output is byte-for-byte reproducible for a given
Python + SQLite version: fixed random seed, no clock reads, explicit values for
every column, built into a temp file, VACUUMed, journal_mode=DELETE,
page_size=4096, then renamed into place.

Relationships (all declared FOREIGN KEYs):
  products.supplier_id        -> suppliers(supplier_id)
  products.category_id        -> categories            (implicit primary key)
  employees.manager_id        -> employees(employee_id) (self reference)
  employees.warehouse_id      -> warehouses(warehouse_id)
  orders.customer_id          -> customers(customer_id)
  orders.employee_id          -> employees(employee_id)
  orders.warehouse_id         -> warehouses(warehouse_id)
  shipments.supplier_id       -> suppliers(supplier_id)
  shipments.warehouse_id      -> warehouses(warehouse_id)
  shipment_items.shipment_id  -> shipments(shipment_id)   (composite PK with product_id)
  shipment_items.product_id   -> products(product_id)
  order_items.order_id        -> orders(order_id)
  order_items.product_id      -> products(product_id)
  order_items.shipment_id     -> shipments(shipment_id)   (inbound supplier shipment
                                                           that supplied / will supply
                                                           the stock for this line)
"""

import datetime
import os
import random
import sqlite3
import sys

SEED = 2026

DDL = """
CREATE TABLE suppliers (
    supplier_id   INTEGER PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE,
    contact_name  TEXT NOT NULL,
    email         TEXT NOT NULL,
    phone         TEXT,
    city          TEXT NOT NULL,
    country       TEXT NOT NULL,
    rating        REAL CHECK (rating BETWEEN 1.0 AND 5.0),
    active        INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1))
);

CREATE TABLE categories (
    category_id   INTEGER PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE,
    description   TEXT
);

CREATE TABLE products (
    product_id    INTEGER PRIMARY KEY,
    sku           TEXT NOT NULL UNIQUE,
    name          TEXT NOT NULL,
    category_id   INTEGER NOT NULL REFERENCES categories,
    supplier_id   INTEGER NOT NULL REFERENCES suppliers(supplier_id),
    unit_price    REAL NOT NULL CHECK (unit_price > 0),
    unit_cost     REAL NOT NULL CHECK (unit_cost > 0),
    reorder_level INTEGER NOT NULL DEFAULT 10,
    discontinued  INTEGER NOT NULL DEFAULT 0 CHECK (discontinued IN (0, 1))
);

CREATE TABLE warehouses (
    warehouse_id  INTEGER PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE,
    city          TEXT NOT NULL,
    country       TEXT NOT NULL,
    capacity_m3   INTEGER NOT NULL CHECK (capacity_m3 > 0)
);

CREATE TABLE customers (
    customer_id   INTEGER PRIMARY KEY,
    company_name  TEXT NOT NULL,
    contact_name  TEXT NOT NULL,
    email         TEXT NOT NULL UNIQUE,
    phone         TEXT,
    city          TEXT NOT NULL,
    country       TEXT NOT NULL,
    segment       TEXT NOT NULL DEFAULT 'retail'
                  CHECK (segment IN ('retail', 'wholesale')),
    created_at    TEXT NOT NULL
);

CREATE TABLE employees (
    employee_id   INTEGER PRIMARY KEY,
    first_name    TEXT NOT NULL,
    last_name     TEXT NOT NULL,
    title         TEXT NOT NULL,
    email         TEXT NOT NULL UNIQUE,
    hire_date     TEXT NOT NULL,
    manager_id    INTEGER REFERENCES employees(employee_id),
    warehouse_id  INTEGER REFERENCES warehouses(warehouse_id)
);

CREATE TABLE orders (
    order_id      INTEGER PRIMARY KEY,
    customer_id   INTEGER NOT NULL REFERENCES customers(customer_id),
    employee_id   INTEGER REFERENCES employees(employee_id),
    warehouse_id  INTEGER NOT NULL,
    order_date    TEXT NOT NULL,
    required_date TEXT,
    shipped_date  TEXT,
    status        TEXT NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'shipped', 'delivered', 'cancelled', 'back-ordered')),
    freight       REAL NOT NULL DEFAULT 0 CHECK (freight >= 0),
    FOREIGN KEY (warehouse_id) REFERENCES warehouses(warehouse_id)
);

CREATE TABLE shipments (
    shipment_id     INTEGER PRIMARY KEY,
    supplier_id     INTEGER NOT NULL REFERENCES suppliers(supplier_id),
    warehouse_id    INTEGER NOT NULL REFERENCES warehouses(warehouse_id),
    tracking_number TEXT NOT NULL UNIQUE,
    carrier         TEXT NOT NULL,
    shipped_date    TEXT NOT NULL,
    received_date   TEXT,
    status          TEXT NOT NULL DEFAULT 'in_transit'
                    CHECK (status IN ('in_transit', 'received', 'delayed', 'lost'))
);

CREATE TABLE shipment_items (
    shipment_id   INTEGER NOT NULL,
    product_id    INTEGER NOT NULL,
    quantity      INTEGER NOT NULL CHECK (quantity > 0),
    unit_cost     REAL NOT NULL,
    PRIMARY KEY (shipment_id, product_id),
    FOREIGN KEY (shipment_id) REFERENCES shipments(shipment_id),
    FOREIGN KEY (product_id) REFERENCES products(product_id)
);

CREATE TABLE order_items (
    order_item_id INTEGER PRIMARY KEY,
    order_id      INTEGER NOT NULL REFERENCES orders(order_id),
    product_id    INTEGER NOT NULL REFERENCES products(product_id),
    shipment_id   INTEGER REFERENCES shipments(shipment_id),
    quantity      INTEGER NOT NULL CHECK (quantity > 0),
    unit_price    REAL NOT NULL CHECK (unit_price > 0),
    discount      REAL NOT NULL DEFAULT 0 CHECK (discount >= 0 AND discount <= 0.5),
    UNIQUE (order_id, product_id)
);

CREATE INDEX idx_orders_customer_date ON orders(customer_id, order_date);

CREATE VIEW order_totals AS
SELECT o.order_id,
       o.customer_id,
       o.order_date,
       o.status,
       COUNT(oi.order_item_id) AS item_count,
       SUM(oi.quantity) AS units,
       ROUND(SUM(oi.quantity * oi.unit_price * (1 - oi.discount)), 2) AS total_amount
FROM orders AS o
JOIN order_items AS oi ON oi.order_id = o.order_id
GROUP BY o.order_id, o.customer_id, o.order_date, o.status;
"""

# --------------------------------------------------------------------------
# Static reference data
# --------------------------------------------------------------------------

SUPPLIERS = [
    # name, city, country
    ("O'Brien Logistics", "Dublin", "Ireland"),
    ("Nordic Timber AB", "Malmö", "Sweden"),
    ("Helvetia Präzision AG", "Zürich", "Switzerland"),
    ("Wisła Foods Sp. z o.o.", "Kraków", "Poland"),
    ("Pacific Rim Trading Co.", "Osaka", "Japan"),
    ("Andes Coffee Exporters", "São Paulo", "Brazil"),
    ("Great Lakes Paper Inc.", "Chicago", "USA"),
    ("Rhein Chemie GmbH", "Düsseldorf", "Germany"),
    ("Maple Leaf Hardware", "Montréal", "Canada"),
    ("Atlas Textiles", "Porto", "Portugal"),
    ("Golden Gate Electronics", "San Jose", "USA"),
    ("D'Angelo & Figli", "Bologna", "Italy"),
]

CATEGORIES = [
    ("Beverages", "Coffee, tea, juices and soft drinks"),
    ("Pantry", "Dry goods, grains, sauces and preserves"),
    ("Cleaning Supplies", "Detergents, disinfectants and janitorial supplies"),
    ("Office Supplies", "Paper, stationery and desk accessories"),
    ("Electronics", "Small electronics, cables and accessories"),
    ("Hardware", "Tools, fasteners and fittings"),
    ("Textiles", "Workwear, towels and linens"),
    ("Furniture", "Shelving, desks and storage"),
]

# category name -> list of (product name, base price)
PRODUCT_CATALOG = {
    "Beverages": [
        ("Arabica Coffee Beans 1kg", 18.50), ("Espresso Roast 500g", 11.90),
        ("Green Tea 100 bags", 6.75), ("Sparkling Water 24x0.5L", 9.40),
        ("Orange Juice 12x1L", 21.00), ("Cold Brew Concentrate 2L", 14.25),
        ("Earl Grey 50 bags", 4.95), ("Cocoa Powder 1kg", 12.30),
    ],
    "Pantry": [
        ("Basmati Rice 5kg", 13.80), ("Extra Virgin Olive Oil 1L", 9.95),
        ("Durum Pasta 12x500g", 15.60), ("Tomato Passata 6x700g", 8.40),
        ("Pierogi Flour 10kg", 11.20), ("Balsamic Vinegar 500ml", 7.85),
        ("Sea Salt 1kg", 2.90),
    ],
    "Cleaning Supplies": [
        ("Multi-Surface Cleaner 5L", 16.40), ("Dish Soap 6x1L", 10.20),
        ("Nitrile Gloves 100pk", 8.99), ("Microfiber Cloths 24pk", 12.50),
        ("Floor Disinfectant 10L", 27.80), ("Hand Sanitizer 5L", 19.90),
        ("Heavy Duty Trash Bags 200pk", 22.40),
    ],
    "Office Supplies": [
        ("A4 Copy Paper 5x500", 24.99), ("Ballpoint Pens 50pk", 7.49),
        ("Sticky Notes 12pk", 5.99), ("Lever Arch Files 10pk", 18.75),
        ("Printer Toner Black", 64.00), ("Recycled Envelopes 500pk", 15.30),
        ("Whiteboard Markers 8pk", 6.20), ("Desk Organizer", 13.40),
    ],
    "Electronics": [
        ("USB-C Cable 2m", 9.99), ("Wireless Mouse", 19.95),
        ("Barcode Scanner", 89.00), ("Label Printer", 149.00),
        ("Power Strip 6-way", 17.50), ("Noise-Cancelling Headset", 79.90),
        ("LED Desk Lamp", 29.90), ("27\" Monitor", 219.00),
    ],
    "Hardware": [
        ("Cordless Drill 18V", 129.00), ("Hex Bolts M8 100pk", 11.60),
        ("Pallet Jack Wheels 2pk", 45.00), ("Steel Tape Measure 8m", 14.90),
        ("Safety Goggles", 7.80), ("Cable Ties 500pk", 9.30),
        ("Utility Knife", 8.45),
    ],
    "Textiles": [
        ("High-Vis Vest", 6.50), ("Cotton Work Shirt", 24.00),
        ("Bath Towels 10pk", 39.50), ("Fleece Jacket", 48.00),
        ("Linen Napkins 50pk", 31.20), ("Canvas Apron", 15.75),
        ("Thermal Socks 6pk", 17.90),
    ],
    "Furniture": [
        ("Steel Shelving Unit", 159.00), ("Ergonomic Office Chair", 239.00),
        ("Folding Table 180cm", 89.50), ("Stacking Chair", 34.90),
        ("Filing Cabinet 4-drawer", 179.00), ("Standing Desk Frame", 299.00),
        ("Storage Bins 12pk", 42.00), ("Pallet Racking Beam", 67.50),
    ],
}

# supplier index -> categories it mainly sells
SUPPLIER_CATEGORIES = {
    0: ["Hardware", "Cleaning Supplies"],
    1: ["Furniture", "Hardware"],
    2: ["Electronics", "Hardware"],
    3: ["Pantry", "Beverages"],
    4: ["Electronics", "Office Supplies"],
    5: ["Beverages", "Pantry"],
    6: ["Office Supplies"],
    7: ["Cleaning Supplies"],
    8: ["Hardware", "Furniture"],
    9: ["Textiles"],
    10: ["Electronics"],
    11: ["Pantry", "Beverages", "Textiles"],
}

WAREHOUSES = [
    ("Rotterdam Hub", "Rotterdam", "Netherlands", 42000),
    ("Chicago Central DC", "Chicago", "USA", 38000),
    ("São Paulo Depot", "São Paulo", "Brazil", 21000),
    ("Kraków East DC", "Kraków", "Poland", 17500),
]

FIRST_NAMES = [
    "Aoife", "Liam", "Sofia", "Mateus", "Zofia", "Jakub", "Lena", "Jonas",
    "Chloé", "Émile", "Hiroshi", "Yuki", "Priya", "Arjun", "Grace", "Ethan",
    "Isabella", "Lucas", "Freya", "Oskar", "Noor", "Omar", "Mia", "Noah",
    "Ana", "João", "Björn", "Ingrid", "Marco", "Giulia", "Siobhan", "Declan",
]
LAST_NAMES = [
    "O'Brien", "Murphy", "Silva", "Santos", "Nowak", "Kowalski", "Müller",
    "Schmidt", "Dubois", "Lefèvre", "Tanaka", "Sato", "Patel", "Sharma",
    "Smith", "Johnson", "Rossi", "Bianchi", "Andersson", "Lindqvist",
    "Haddad", "Khan", "García", "López", "O'Neill", "D'Souza", "Novak",
    "Fischer", "Brown", "Wilson",
]

CUSTOMER_CITIES = [
    ("Dublin", "Ireland", "+353"), ("Cork", "Ireland", "+353"),
    ("London", "UK", "+44"), ("Manchester", "UK", "+44"),
    ("Zürich", "Switzerland", "+41"), ("Geneva", "Switzerland", "+41"),
    ("Kraków", "Poland", "+48"), ("Łódź", "Poland", "+48"),
    ("Warsaw", "Poland", "+48"), ("São Paulo", "Brazil", "+55"),
    ("Rio de Janeiro", "Brazil", "+55"), ("München", "Germany", "+49"),
    ("Berlin", "Germany", "+49"), ("Hamburg", "Germany", "+49"),
    ("Paris", "France", "+33"), ("Lyon", "France", "+33"),
    ("Malmö", "Sweden", "+46"), ("Göteborg", "Sweden", "+46"),
    ("Reykjavík", "Iceland", "+354"), ("Montréal", "Canada", "+1"),
    ("Toronto", "Canada", "+1"), ("New York", "USA", "+1"),
    ("Chicago", "USA", "+1"), ("Austin", "USA", "+1"),
    ("Seattle", "USA", "+1"), ("Milan", "Italy", "+39"),
    ("Rotterdam", "Netherlands", "+31"), ("Amsterdam", "Netherlands", "+31"),
]

COMPANY_PREFIXES = [
    "Blue Harbor", "Corner", "Evergreen", "Golden Crust", "Summit", "Riverside",
    "Old Town", "Northwind", "Copperleaf", "Silver Birch", "Keystone",
    "Lakeside", "Urban", "Brightside", "Harvest Moon", "Ironbridge", "Red Fox",
    "Sunrise", "Half Moon", "Meadowbrook", "Stonegate", "Whitecliff",
]
COMPANY_SUFFIXES_RETAIL = [
    "Café", "Market", "Deli", "Bistro", "Grocers", "Bakery", "Pharmacy",
    "Hardware Store", "Office Shop", "Hotel",
]
COMPANY_SUFFIXES_WHOLESALE = [
    "Distribution", "Wholesale Ltd", "Trading GmbH", "Supply Co.",
    "Facilities Services", "Catering Group",
]
IRISH_STYLE = ["O'Malley's", "McKenna's", "Kelly's", "Mario's", "Zoë's"]

CARRIERS = ["DHL Freight", "Maersk", "UPS Supply Chain", "DB Schenker", "Kuehne + Nagel"]

ORDER_STATUSES = ["pending", "shipped", "delivered", "cancelled", "back-ordered"]

# O'Brien Logistics: its late-2025 inbound shipments are delayed, so it is the
# supplier behind most back-ordered items in Q4 2025.
STOCKOUT_SUPPLIER = 1

START = datetime.date(2023, 1, 1)
END = datetime.date(2025, 12, 31)


def d2s(d):
    return d.isoformat()


def rand_date(rng, lo, hi):
    span = (hi - lo).days
    return lo + datetime.timedelta(days=rng.randint(0, span))


def ascii_slug(s):
    table = str.maketrans({
        "ã": "a", "á": "a", "à": "a", "ä": "a", "å": "a", "é": "e", "è": "e",
        "ë": "e", "í": "i", "ó": "o", "ö": "o", "ø": "o", "ü": "u", "ú": "u",
        "ł": "l", "ś": "s", "ż": "z", "ź": "z", "ç": "c", "ñ": "n",
    })
    out = s.lower().translate(table)
    return "".join(ch for ch in out if ch.isalnum())


def phone(rng, prefix):
    return "%s %d %03d %04d" % (prefix, rng.randint(10, 99), rng.randint(0, 999),
                                rng.randint(0, 9999))


# --------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------

def generate():
    rng = random.Random(SEED)
    random.seed(SEED)  # also pin the module-level generator
    data = {}

    # suppliers --------------------------------------------------------------
    country_prefix = {c: p for _, c, p in CUSTOMER_CITIES}
    country_prefix.update({"Japan": "+81", "Portugal": "+351", "Italy": "+39"})
    suppliers = []
    for i, (name, city, country) in enumerate(SUPPLIERS, start=1):
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        domain = ascii_slug(name.split()[0]) + ".example.com"
        email = "%s.%s@%s" % (ascii_slug(first), ascii_slug(last), domain)
        ph = None if i in (4, 9) else phone(rng, country_prefix.get(country, "+1"))
        rating = round(rng.uniform(2.6, 4.9), 1)
        active = 0 if i == 7 else 1  # one inactive supplier (still has history)
        suppliers.append((i, name, "%s %s" % (first, last), email, ph, city, country,
                          rating, active))
    data["suppliers"] = suppliers

    # categories --------------------------------------------------------------
    data["categories"] = [(i, n, d) for i, (n, d) in enumerate(CATEGORIES, start=1)]
    cat_id = {n: i for i, (n, _) in enumerate(CATEGORIES, start=1)}

    # products: 60, each assigned to a supplier that sells the category -------
    all_products = []
    for cname, items in PRODUCT_CATALOG.items():
        for pname, price in items:
            all_products.append((cname, pname, price))
    rng.shuffle(all_products)
    all_products = all_products[:60]
    all_products.sort(key=lambda t: (cat_id[t[0]], t[1]))
    cat_suppliers = {}
    for sidx, cats in SUPPLIER_CATEGORIES.items():
        for c in cats:
            cat_suppliers.setdefault(c, []).append(sidx + 1)
    products = []
    for pid, (cname, pname, price) in enumerate(all_products, start=1):
        sid = rng.choice(cat_suppliers[cname])
        unit_price = round(price * rng.uniform(0.95, 1.08), 2)
        unit_cost = round(unit_price * rng.uniform(0.55, 0.78), 2)
        sku = "%s-%04d" % (cname[:3].upper(), 1000 + pid * 7)
        reorder = rng.choice([5, 10, 10, 20, 25, 50])
        discontinued = 1 if rng.random() < 0.06 else 0
        products.append((pid, sku, pname, cat_id[cname], sid, unit_price, unit_cost,
                         reorder, discontinued))
    data["products"] = products
    prod_by_supplier = {}
    for p in products:
        prod_by_supplier.setdefault(p[4], []).append(p[0])
    # make sure every supplier has at least two products
    for sid in range(1, len(SUPPLIERS) + 1):
        while len(prod_by_supplier.get(sid, [])) < 2:
            # steal a product from the supplier with the most products
            donor = max(sorted(prod_by_supplier), key=lambda k: len(prod_by_supplier[k]))
            pid = prod_by_supplier[donor].pop()
            prod_by_supplier.setdefault(sid, []).append(pid)
            row = list(products[pid - 1])
            row[4] = sid
            products[pid - 1] = tuple(row)
    for k in prod_by_supplier:
        prod_by_supplier[k].sort()
    product_supplier = {p[0]: p[4] for p in products}
    product_price = {p[0]: p[5] for p in products}
    product_cost = {p[0]: p[6] for p in products}

    # warehouses ---------------------------------------------------------------
    data["warehouses"] = [(i, n, c, co, cap) for i, (n, c, co, cap) in
                          enumerate(WAREHOUSES, start=1)]

    # employees: CEO, 4 warehouse managers, 10 staff -------------------------
    employees = []
    used_names = []

    def person():
        while True:
            f, l = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
            if (f, l) not in used_names:
                used_names.append((f, l))
                return f, l

    f, l = person()
    employees.append([1, f, l, "Chief Executive Officer", None,
                      d2s(datetime.date(2015, 3, 2)), None, None])
    for w in range(1, 5):
        f, l = person()
        employees.append([len(employees) + 1, f, l, "Warehouse Manager", None,
                          d2s(rand_date(rng, datetime.date(2016, 1, 1),
                                        datetime.date(2020, 12, 31))), 1, w])
    titles = ["Sales Representative"] * 7 + ["Inventory Clerk"] * 2 + ["Buyer"]
    for t in titles:
        f, l = person()
        w = rng.randint(1, 4)
        employees.append([len(employees) + 1, f, l, t, None,
                          d2s(rand_date(rng, datetime.date(2018, 1, 1),
                                        datetime.date(2023, 6, 30))), 1 + w, w])
    for e in employees:
        e[4] = "%s.%s@sqale-demo.example" % (ascii_slug(e[1]), ascii_slug(e[2]))
    data["employees"] = [tuple(e) for e in employees]
    sales_reps = [e[0] for e in employees if e[3] == "Sales Representative"]
    rep_warehouse = {e[0]: e[7] for e in employees}

    # customers: 80 --------------------------------------------------------------
    customers = []
    used_companies = []
    for cid in range(1, 81):
        city, country, pfx = rng.choice(CUSTOMER_CITIES)
        segment = "wholesale" if rng.random() < 0.3 else "retail"
        while True:
            if segment == "retail" and rng.random() < 0.15:
                company = "%s %s" % (rng.choice(IRISH_STYLE),
                                     rng.choice(COMPANY_SUFFIXES_RETAIL))
            elif segment == "retail":
                company = "%s %s" % (rng.choice(COMPANY_PREFIXES),
                                     rng.choice(COMPANY_SUFFIXES_RETAIL))
            else:
                company = "%s %s" % (rng.choice(COMPANY_PREFIXES),
                                     rng.choice(COMPANY_SUFFIXES_WHOLESALE))
            if company not in used_companies:
                used_companies.append(company)
                break
        f, l = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        email = "%s.%s%d@%s.example.net" % (ascii_slug(f), ascii_slug(l), cid,
                                            ascii_slug(company)[:16])
        ph = None if rng.random() < 0.2 else phone(rng, pfx)
        created = rand_date(rng, datetime.date(2021, 6, 1), datetime.date(2025, 6, 30))
        customers.append((cid, company, "%s %s" % (f, l), email, ph, city, country,
                          segment, d2s(created)))
    data["customers"] = customers
    # heavy buyers: wholesale customers order much more often
    cust_weights = []
    for c in customers:
        w = 6.0 if c[7] == "wholesale" else 1.0
        if c[0] % 11 == 0:
            w *= 2.5
        cust_weights.append(w)
    cust_created = {c[0]: datetime.date.fromisoformat(c[8]) for c in customers}

    # shipments: 120 inbound supplier shipments ------------------------------------
    sup_weights = [1.0 + (i % 5) * 0.5 for i in range(len(SUPPLIERS))]
    shipments = []
    shipment_items = []
    for shid in range(1, 121):
        sid = rng.choices(range(1, len(SUPPLIERS) + 1), weights=sup_weights)[0]
        # spread evenly over time, with a little jitter; later ids are later
        base = START + datetime.timedelta(days=int((shid - 1) * (END - START).days / 120))
        shipped = base + datetime.timedelta(days=rng.randint(0, 8))
        if shipped > END:
            shipped = END
        transit = rng.randint(4, 25)
        received = shipped + datetime.timedelta(days=transit)
        if received > END:
            status, received = "in_transit", None
        elif rng.random() < 0.04:
            status, received = "lost", None
        elif sid == STOCKOUT_SUPPLIER and shipped >= datetime.date(2025, 9, 1):
            status, received = "delayed", None
        elif shipped >= datetime.date(2025, 10, 1) and rng.random() < 0.35:
            # overdue and not yet arrived
            status, received = "delayed", None
        else:
            status = "received"
        carrier = rng.choice(CARRIERS)
        tracking = "%s%09d" % ("".join(w[0] for w in carrier.split() if w[0].isalpha()),
                               rng.randint(10 ** 8, 10 ** 9 - 1))
        wid = rng.randint(1, 4)
        shipments.append((shid, sid, wid, tracking, carrier, d2s(shipped),
                          d2s(received) if received else None, status))
        pool = prod_by_supplier[sid]
        k = min(len(pool), rng.randint(2, 5))
        for pid in sorted(rng.sample(pool, k)):
            qty = rng.choice([24, 48, 60, 96, 120, 144, 200, 240, 500])
            cost = round(product_cost[pid] * rng.uniform(0.96, 1.04), 2)
            shipment_items.append((shid, pid, qty, cost))
    data["shipments"] = shipments
    data["shipment_items"] = shipment_items
    ship_date = {s[0]: datetime.date.fromisoformat(s[5]) for s in shipments}
    ship_status = {s[0]: s[7] for s in shipments}
    shipments_with_product = {}
    for shid, pid, _, _ in shipment_items:
        shipments_with_product.setdefault(pid, []).append(shid)

    # orders: 250 ---------------------------------------------------------------
    orders = []
    order_items = []
    cust_ids = [c[0] for c in customers]
    order_dates = []
    for _ in range(250):
        # slight growth over time: sample twice, keep the later date sometimes
        d = rand_date(rng, START, END)
        if rng.random() < 0.25:
            d = max(d, rand_date(rng, START, END))
        order_dates.append(d)
    order_dates.sort()
    q4_2025 = datetime.date(2025, 10, 1)
    for oid, odate in enumerate(order_dates, start=1):
        while True:
            cid = rng.choices(cust_ids, weights=cust_weights)[0]
            if cust_created[cid] <= odate:
                break
        # order lines are chosen first: their supplier influences the status
        n_lines = rng.choices([1, 2, 3, 4, 5], weights=[3, 5, 5, 3, 2])[0]
        pids = sorted(rng.sample(range(1, len(products) + 1), n_lines))
        if odate >= q4_2025 and rng.random() < 0.45:
            # winter demand for the stock-out supplier's cleaning/hardware lines
            extra = rng.choice(prod_by_supplier[STOCKOUT_SUPPLIER])
            if extra not in pids:
                pids = sorted(pids[:-1] + [extra]) if len(pids) > 2 else sorted(pids + [extra])

        age = (END - odate).days
        r = rng.random()
        if age < 21:
            status = "pending" if r < 0.55 else ("back-ordered" if r < 0.8 else "shipped")
        elif age < 60:
            status = ("pending" if r < 0.15 else "shipped" if r < 0.55
                      else "back-ordered" if r < 0.8 else "delivered")
        elif odate >= q4_2025:
            status = ("back-ordered" if r < 0.3 else "delivered" if r < 0.85
                      else "cancelled")
        else:
            status = ("delivered" if r < 0.84 else "cancelled" if r < 0.92
                      else "back-ordered")
        if status == "back-ordered" and odate < datetime.date(2025, 6, 1) and r < 0.95:
            # old back orders have long since resolved
            status = "delivered"
        if (odate >= q4_2025 and status in ("shipped", "delivered")
                and any(product_supplier[p] == STOCKOUT_SUPPLIER for p in pids)
                and rng.random() < 0.85):
            # the stock-out supplier's Q4 2025 shipments are stuck: orders wait
            status = "back-ordered"
        rep = rng.choice(sales_reps) if rng.random() < 0.92 else None
        wid = rep_warehouse[rep] if rep and rng.random() < 0.7 else rng.randint(1, 4)
        required = odate + datetime.timedelta(days=rng.choice([7, 10, 14, 21, 30]))
        shipped = None
        if status in ("shipped", "delivered"):
            shipped = odate + datetime.timedelta(days=rng.randint(1, 9))
            if shipped > END:
                shipped = END
        freight = round(rng.uniform(4.5, 180.0), 2) if status != "cancelled" else 0.0
        orders.append((oid, cid, rep, wid, d2s(odate), d2s(required),
                       d2s(shipped) if shipped else None, status, freight))

        for pid in pids:
            qty = rng.randint(1, 12)
            seg = customers[cid - 1][7]
            if seg == "wholesale":
                qty *= rng.choice([2, 5, 10])
            price = product_price[pid]
            if odate.year == 2023:
                price = round(price * 0.94, 2)
            elif odate.year == 2024:
                price = round(price * 0.97, 2)
            discount = 0.0
            if seg == "wholesale":
                discount = rng.choice([0.0, 0.05, 0.05, 0.1, 0.15])
            elif rng.random() < 0.1:
                discount = 0.05
            cands = shipments_with_product.get(pid, [])
            shid = None
            if status == "back-ordered":
                # waiting on an inbound shipment: the next one on or after the order
                later = [s for s in cands if ship_date[s] >= odate - datetime.timedelta(days=20)]
                if later:
                    shid = min(later, key=lambda s: (ship_date[s], s))
                elif cands:
                    shid = max(cands, key=lambda s: (ship_date[s], s))
            elif status in ("shipped", "delivered"):
                # fulfilled from the most recent received inbound shipment
                earlier = [s for s in cands if ship_date[s] <= odate
                           and ship_status[s] == "received"]
                if earlier:
                    shid = max(earlier, key=lambda s: (ship_date[s], s))
            order_items.append([None, oid, pid, shid, qty, price, discount])
    data["orders"] = orders
    for i, row in enumerate(order_items, start=1):
        row[0] = i
    data["order_items"] = [tuple(r) for r in order_items]
    return data


INSERT_ORDER = [
    "suppliers", "categories", "products", "warehouses", "customers", "employees",
    "orders", "shipments", "shipment_items", "order_items",
]


def build(out_path):
    out_path = os.path.abspath(out_path)
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    tmp = out_path + ".tmp"
    for p in (tmp, tmp + "-journal"):
        if os.path.exists(p):
            os.remove(p)

    data = generate()

    con = sqlite3.connect(tmp, isolation_level=None)
    con.execute("PRAGMA page_size=4096")
    con.execute("PRAGMA journal_mode=DELETE")
    con.execute("PRAGMA foreign_keys=ON")
    con.executescript("BEGIN;" + DDL + "COMMIT;")
    con.execute("BEGIN")
    for table in INSERT_ORDER:
        rows = data[table]
        ph = ",".join("?" * len(rows[0]))
        con.executemany("INSERT INTO %s VALUES (%s)" % (table, ph), rows)
    con.execute("COMMIT")

    problems = con.execute("PRAGMA foreign_key_check").fetchall()
    if problems:
        raise SystemExit("foreign key violations: %r" % problems[:5])
    ok = con.execute("PRAGMA integrity_check").fetchone()[0]
    if ok != "ok":
        raise SystemExit("integrity_check failed: %s" % ok)

    con.execute("VACUUM")
    counts = [(t, con.execute("SELECT COUNT(*) FROM %s" % t).fetchone()[0])
              for t in INSERT_ORDER]
    con.close()
    os.replace(tmp, out_path)

    total = 0
    for t, n in counts:
        print("%-15s %5d rows" % (t, n))
        total += n
    print("%-15s %5d rows -> %s (%d bytes)" % ("TOTAL", total, out_path,
                                               os.path.getsize(out_path)))


def main(argv):
    if len(argv) > 1:
        out = argv[1]
    else:
        repo_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        out = os.path.join(repo_root, "data", "demo.sqlite")
    build(out)


if __name__ == "__main__":
    main(sys.argv)
