/// One line of the results table.
struct Row {
    let figure: String
    let value: String
    let floor: String
    let ratio: String
    let goal: String
    let met: Bool?

    var cells: [String] { [figure, value, floor, ratio, goal, met.map { $0 ? "yes" : "**no**" } ?? "—"] }
}
