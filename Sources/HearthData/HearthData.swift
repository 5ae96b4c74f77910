// `import HearthData` is what a plugin writes where an Apple app writes `import SQLiteData`:
// the SQLite layer, the query language, the live property wrappers and dependencies.
@_exported import HearthDependencies
@_exported import HearthQuery
