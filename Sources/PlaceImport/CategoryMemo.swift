import PlaceModel

/// What the category cells of a dump parse to, remembered. A dump repeats a few hundred
/// distinct cells a million times, and splitting and validating each again was a tenth of the
/// time spent reading a CSV dump. Bounded, so that free text in a category column cannot grow
/// it without end. A reader owns one and uses it from its own thread only.
final class CategoryMemo {
    /// A cell's taxonomy categories, and its words that are not ones (kept as a tag). A word
    /// finer than the taxonomy (`food.ramen`) is both: filed under its nearest ancestor in the
    /// taxonomy (`food`) and kept as written.
    struct Cell {
        var categories: [Category]
        var unknown: [String]
    }

    private var cells: [String: Cell] = [:]
    private let splitsCells: Bool
    private let limit: Int

    /// - Parameters:
    ///   - splitsCells: whether a cell may hold several categories separated by `;`, `|` or
    ///     spaces (CSV), or is one value (an element of a GeoJSON property).
    ///   - limit: how many distinct cells to remember; past it, cells are parsed every time.
    init(splitsCells: Bool, limit: Int = 50_000) {
        self.splitsCells = splitsCells
        self.limit = limit
    }

    /// The categories in `cell`.
    func parse(_ cell: String) -> Cell {
        if let parsed = cells[cell] { return parsed }
        var parsed = Cell(categories: [], unknown: [])
        let words = splitsCells ? cell.split(whereSeparator: { $0 == ";" || $0 == "|" || $0 == " " }).map(String.init) : [cell]
        for word in words {
            if let category = Category(nearestInTaxonomy: word) {
                if !parsed.categories.contains(category) { parsed.categories.append(category) }
                if category.identifier != word { parsed.unknown.append(word) }
            } else {
                parsed.unknown.append(word)
            }
        }
        if cells.count < limit { cells[cell] = parsed }
        return parsed
    }

    /// How many distinct cells are remembered.
    var count: Int { cells.count }
}
