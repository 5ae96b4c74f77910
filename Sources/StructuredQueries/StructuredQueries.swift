// `import StructuredQueries`, as the reference's query-language documentation writes it: the
// same as `import HearthQuery`.
@_exported import HearthQuery
