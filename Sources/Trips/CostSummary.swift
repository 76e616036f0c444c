import Foundation

/// What a plan costs: totals per category and per currency. Amounts in different currencies
/// are never added (no exchange rate is invented).
public struct CostSummary: Sendable, Hashable {
    public enum Category: String, Sendable, CaseIterable {
        case transport, lodging, stops
    }

    /// Per category, per currency (currencies sorted).
    public var byCategory: [Category: [Money]]
    /// Per currency, every category together.
    public var total: [Money]
    /// The budget less the total in the budget's currency (nil without a budget); negative
    /// when over budget.
    public var remaining: Money?
    /// Currencies spent in other than the budget's, which the remaining amount leaves out.
    public var otherCurrencies: [String]

    public init(_ itinerary: ItineraryDocument) {
        var sums: [Category: [String: Decimal]] = [:]
        func add(_ price: Money?, to category: Category) {
            guard let price else { return }
            sums[category, default: [:]][price.currency, default: 0] += price.amount
        }
        itinerary.transport.forEach { add($0.price, to: .transport) }
        itinerary.lodging.forEach { add($0.price, to: .lodging) }
        itinerary.stops.forEach { add($0.price, to: .stops) }
        func sorted(_ amounts: [String: Decimal]) -> [Money] {
            amounts.keys.sorted().map { Money(amount: amounts[$0] ?? 0, currency: $0) }
        }
        byCategory = sums.mapValues(sorted)
        var all: [String: Decimal] = [:]
        for amounts in sums.values { for (currency, amount) in amounts { all[currency, default: 0] += amount } }
        total = sorted(all)
        if let budget = itinerary.budget {
            remaining = Money(amount: budget.amount - (all[budget.currency] ?? 0), currency: budget.currency)
            otherCurrencies = all.keys.filter { $0 != budget.currency }.sorted()
        } else {
            remaining = nil
            otherCurrencies = []
        }
    }
}
