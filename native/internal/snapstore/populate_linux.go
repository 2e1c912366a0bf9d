package snapstore

import "syscall"

// mapPopulate faults the whole mapping in with the mmap call itself.
const mapPopulate = syscall.MAP_POPULATE
