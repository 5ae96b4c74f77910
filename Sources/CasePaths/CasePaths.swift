// `import CasePaths`, as the reference's enum tables write it: `@CasePathable`, case paths
// and `AnyCasePath` are HearthQuery's own (no package from outside the toolchain).
@_exported import HearthQuery
