// `import SQLiteData`, as the reference's documentation writes it: the same as
// `import HearthData` (the SQLite layer, the query language, the live wrappers and
// dependencies).
@_exported import HearthData
