// readosm: only the benchmark links it, as the baseline of the Swift OSM reader.
#include <readosm.h>
