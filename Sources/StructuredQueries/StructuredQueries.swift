// `import StructuredQueries`, as the reference's query-language documentation writes it: the
// same as `import HearthQuery`.
@_exported import HearthQuery

#if Tagged
  // The package trait `Tagged`: `Tagged<Self, Int>` identifiers, as with the reference's.
  @_exported import Tagged
#endif
