#!/usr/bin/env python3
"""Runs the reference's SQL for one statement on a copy of a test's database with a current
SQLite (apsw's, from PyPI), for the statements Debian 12's SQLite 3.40 cannot run as the
reference means them: JSONB (3.45), the 'subsec' modifier (3.42), unhex (3.41).

Reads a JSON request on standard input: {"database": path, "temporary": [sql…], "sql": sql}.
Prints {"rows": [[value…]…], "contents": {table: [[value…]…]}} or {"error": message}. Each
value is drawn as SQLite's quote() draws it, as the harness draws Hearth's, except that a
JSONB value is drawn as its JSON text: Hearth keeps JSON as text where the reference keeps
JSONB, and the rows are compared by value."""
import json
import sys

import apsw


def main():
    request = json.load(sys.stdin)
    db = apsw.Connection(request["database"])
    # As Hearth's connections, and so as the harness's copies of the test's database.
    db.execute("PRAGMA foreign_keys = ON")
    for sql in request["temporary"]:
        db.execute(sql)

    def drawn(value):
        if value is None:
            return "NULL"
        if isinstance(value, bool):
            return str(int(value))
        if isinstance(value, int):
            return str(value)
        if isinstance(value, float):
            return swift_double(value)
        if isinstance(value, str):
            return "'" + value.replace("'", "''") + "'"
        try:
            text = db.execute("SELECT json(?)", (value,)).fetchone()[0]
            return "'" + text.replace("'", "''") + "'"
        except apsw.Error:
            return "X'" + bytes(value).hex().upper() + "'"

    try:
        rows = [[drawn(v) for v in row] for row in db.execute(request["sql"])]
    except apsw.Error as error:
        print(json.dumps({"error": str(error)}))
        return
    tables = [row[0] for row in db.execute(
        """
        SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
          AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'
          AND name NOT IN (SELECT name || suffix FROM sqlite_master,
            (SELECT '_data' AS suffix UNION ALL SELECT '_idx' UNION ALL SELECT '_content'
             UNION ALL SELECT '_docsize' UNION ALL SELECT '_config') WHERE type = 'table')
        UNION ALL SELECT name FROM sqlite_temp_master WHERE type = 'table'
        """)]
    contents = {}
    for table in tables:
        quoted = '"' + table.replace('"', '""') + '"'
        drawn_rows = [[drawn(v) for v in row] for row in db.execute("SELECT * FROM " + quoted)]
        contents["'" + table.replace("'", "''") + "'"] = sorted(
            drawn_rows, key=lambda row: "\u0001".join(row))
    print(json.dumps({"rows": rows, "contents": contents}))


def swift_double(value):
    """A double as Swift's String(Double) writes it (the shortest text that reads back)."""
    if value != value:
        return "nan"
    if value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    text = repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        sign = "-" if exponent.startswith("-") else "+"
        digits = exponent.lstrip("+-").lstrip("0") or "0"
        return mantissa + "e" + sign + digits.zfill(2)
    return text


if __name__ == "__main__":
    main()
