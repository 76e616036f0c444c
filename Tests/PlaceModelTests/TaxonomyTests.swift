import Foundation
import GeoCore
import Testing

@testable import PlaceModel

@Suite struct TaxonomyTests {
    @Test func theTaxonomyIsItsTopLevelsEachFollowedByItsSubcategories() throws {
        let taxonomy = Category.taxonomy
        #expect(taxonomy.count == Set(taxonomy).count, "no category twice")
        #expect(taxonomy.filter { $0.parent == nil }.map(\.identifier) == Category.topLevelIdentifiers)
        for (offset, category) in taxonomy.enumerated() where category.parent != nil {
            // A subcategory follows its top level or a sibling, and its parent is in the taxonomy.
            #expect(taxonomy[offset - 1] == category.parent || taxonomy[offset - 1].parent == category.parent, "\(category)")
            #expect(Category.isInTaxonomy(category.parent!.identifier))
        }
        for category in taxonomy {
            #expect(try Category(category.identifier) == category)
            #expect(category.subcategories.allSatisfy { $0.parent == category })
        }
        #expect(Category.water.subcategories.contains(.beach))
        #expect(Category.beach.subcategories.isEmpty)
    }

    @Test func outsideTheTaxonomyTheErrorSaysWhatIsValid() {
        func message(_ text: String) -> String {
            do {
                _ = try Category(text)
                return "accepted"
            } catch { return String(describing: error) }
        }
        #expect(
            message("food.ramen")
                == "category 'food.ramen' is not in the taxonomy: under food there are food.bakery, food.cafe, food.dessert, food.fast_food, food.restaurant"
        )
        #expect(
            message("nature.viewpoint").hasPrefix(
                "category 'nature.viewpoint' is not in the taxonomy: did you mean landmark.viewpoint? Under nature there are nature.arch, "))
        #expect(message("beach").hasPrefix("category 'beach' is not in the taxonomy: did you mean water.beach? The top levels are food, drink, "))
        #expect(message("Water.Beach").hasPrefix("category 'Water.Beach' is not in the taxonomy: did you mean water.beach? "))
        #expect(
            message("spaceship") == "category 'spaceship' is not in the taxonomy: the top levels are "
                + Category.topLevelIdentifiers.joined(separator: ", ") + ", each with subcategories such as water.beach")
    }

    @Test func theNearestCategoryInTheTaxonomy() {
        #expect(Category(nearestInTaxonomy: "water.beach") == .beach)
        #expect(Category(nearestInTaxonomy: "food.ramen") == .food)
        #expect(Category(nearestInTaxonomy: "water.beach.nudist") == .beach)
        #expect(Category(nearestInTaxonomy: "spaceship.dock") == nil)
        #expect(Category(nearestInTaxonomy: "") == nil)
    }

    @Test func labelsForPeople() {
        #expect(Category.food.label == "Food")
        #expect(Category(trustedIdentifier: "food.fast_food").label == "Fast food")
        #expect(Category(trustedIdentifier: "service.atm").label == "ATM")
        #expect(Category(trustedIdentifier: "service.tourist_information").label == "Tourist information")
    }

    /// JSON written when the taxonomy was open still reads back; what is not a category at all does not.
    @Test func decodingAcceptsWellFormedIdsFromBefore() throws {
        let decoded = try JSONDecoder().decode([Category].self, from: Data(#"["food.ramen","water.beach"]"#.utf8))
        #expect(decoded.map(\.identifier) == ["food.ramen", "water.beach"])
        #expect(throws: PlaceModelError.invalidCategory("Spaceship")) {
            try JSONDecoder().decode([Category].self, from: Data(#"["Spaceship"]"#.utf8))
        }
    }

    /// A place from before: each category outside the taxonomy filed under its nearest (none for
    /// an unknown top level), each original kept once in `source_category` after what was there.
    @Test func aPlaceFromBeforeIsFiledUnderTheTaxonomy() throws {
        let inside = Place(
            id: try PlaceID("gem:a"), name: "A", coordinate: try Coordinate(latitude: 0, longitude: 0),
            categories: [.beach, .food])
        #expect(inside.filedUnderTheTaxonomy() == nil)
        var before = inside
        before.categories = ["water.beach.nudist", "food", "food.ramen", "spaceship.dock"].map { Category(trustedIdentifier: $0) }
        before.tags = ["source_category": "food.ramen"]
        let filed = try #require(before.filedUnderTheTaxonomy())
        #expect(filed.categories == [.beach, .food])
        #expect(filed.tags == ["source_category": "food.ramen;water.beach.nudist;spaceship.dock"])
        #expect(filed.filedUnderTheTaxonomy() == nil, "filing twice changes nothing")
        #expect(filed.name == "A" && filed.id == inside.id)
    }
}
