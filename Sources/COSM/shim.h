// readosm (OpenStreetMap PBF and XML, by SpatiaLite's author) and libbz2 for `.osm.bz2`.
#include <readosm.h>
#include <bzlib.h>
