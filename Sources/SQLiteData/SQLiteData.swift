// `import SQLiteData`, as the reference's documentation writes it: the same as
// `import HearthData` (the SQLite layer, the query language, the live wrappers and
// dependencies).
@_exported import HearthData

#if Tagged
  // The package trait `Tagged`: `Tagged<Self, Int>` identifiers, as with the reference's.
  @_exported import Tagged
#endif
