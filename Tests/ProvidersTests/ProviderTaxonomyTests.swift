import PlaceModel
import Testing

@testable import Providers

/// Every category a provider's answer can give a place is in the taxonomy.
@Suite struct ProviderTaxonomyTests {
    @Test func everyProviderMappingLandsInTheTaxonomy() {
        let mapped =
            Array(ProviderCategories.google.values) + Array(ProviderCategories.yelp.values)
            + Array(ProviderCategories.foursquareRanges.values) + ProviderCategories.here.map(\.category)
            + ProviderCategories.labelWords.map(\.category) + Array(ProviderCategories.googleRepresentative.keys)
        #expect(mapped.count > 100)
        let outside = Set(mapped.filter { !Category.isInTaxonomy($0) }).sorted()
        #expect(outside.isEmpty, "mapped outside the taxonomy (add them to Category.tree): \(outside)")
    }
}
