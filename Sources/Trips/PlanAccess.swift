import PlaceQuery

/// What a viewer may do with a plan. Ordered: each level includes the ones below it.
public enum PlanAccess: Int, Sendable, Comparable {
    /// The plan does not exist for them (answered 404, like a plan that does not exist).
    case none
    /// Reads it (a viewer, an invitee, a friend of the owner on a `friends` plan, anyone on a
    /// `public` one, anyone holding a live share link).
    case read
    /// Changes what it holds (an itinerary's editors).
    case edit
    /// Changes who may see it, its links and members; deletes it.
    case own

    public static func < (lhs: PlanAccess, rhs: PlanAccess) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The access of `viewer` (nil when signed out) to `plan`; `isFriendOfOwner` says whether
    /// the viewer is an accepted friend of the owner.
    public static func of(_ viewer: String?, to plan: PlanRecord, isFriendOfOwner: Bool) -> PlanAccess {
        if let viewer, viewer == plan.owner { return .own }
        if let member = plan.member(viewer) {
            return member.role == .editor ? .edit : .read
        }
        switch plan.visibility {
        case .public: return .read
        case .friends: return viewer != nil && isFriendOfOwner ? .read : .none
        case .private: return .none
        }
    }
}
