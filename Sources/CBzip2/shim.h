// libbz2, for `.osm.bz2` dumps.
#include <bzlib.h>
