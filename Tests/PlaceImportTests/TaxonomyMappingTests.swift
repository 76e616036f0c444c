import PlaceModel
import Testing

@testable import PlaceImport

/// Every category an import can give a place is in the taxonomy, so a filter can name it.
@Suite struct TaxonomyMappingTests {
    @Test func everyImportMappingLandsInTheTaxonomy() {
        let mapped =
            Array(OSMTags.table.values) + Array(OSMTags.keyDefaults.values) + Array(OSMTags.religions.values)
            + Array(FoursquareCategories.table.values) + Array(GeoNamesDumpReader.featureCategories.values)
        #expect(mapped.count > 150)
        let outside = Set(mapped.filter { !Category.isInTaxonomy($0) }).sorted()
        #expect(outside.isEmpty, "mapped outside the taxonomy (add them to Category.tree): \(outside)")
    }

    /// And every subcategory is reachable from some source (none is dead weight in a filter list).
    @Test func everySubcategoryHasASource() {
        let mapped = Set(
            Array(OSMTags.table.values) + Array(OSMTags.keyDefaults.values) + Array(OSMTags.religions.values)
                + Array(FoursquareCategories.table.values) + Array(GeoNamesDumpReader.featureCategories.values))
        let unreachable = Category.taxonomy.filter { $0.parent != nil && !mapped.contains($0.identifier) }.map(\.identifier)
        #expect(unreachable.isEmpty, "no import gives these: \(unreachable)")
    }
}
