// `Locked` (and `Logger`) come from the bottom layer, HearthSupport; they are part of the
// SQLite layer's API as they were before that layer was split off.
@_exported import HearthSupport
