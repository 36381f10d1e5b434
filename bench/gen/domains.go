package gen

// The TPC-H domains (spec §4.2.2.13 and §4.2.3), shared by SSB.

var nations = []struct {
	name   string
	region int64
}{
	{"ALGERIA", 0}, {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1}, {"EGYPT", 4},
	{"ETHIOPIA", 0}, {"FRANCE", 3}, {"GERMANY", 3}, {"INDIA", 2}, {"INDONESIA", 2},
	{"IRAN", 4}, {"IRAQ", 4}, {"JAPAN", 2}, {"JORDAN", 4}, {"KENYA", 0},
	{"MOROCCO", 0}, {"MOZAMBIQUE", 0}, {"PERU", 1}, {"CHINA", 2}, {"ROMANIA", 3},
	{"SAUDI ARABIA", 4}, {"VIETNAM", 2}, {"RUSSIA", 3}, {"UNITED KINGDOM", 3}, {"UNITED STATES", 1},
}

var regions = []string{"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}

var colors = []string{"almond", "antique", "aquamarine", "azure", "beige", "bisque", "black",
	"blanched", "blue", "blush", "brown", "burlywood", "burnished", "chartreuse", "chiffon",
	"chocolate", "coral", "cornflower", "cornsilk", "cream", "cyan", "dark", "deep", "dim",
	"dodger", "drab", "firebrick", "floral", "forest", "frosted", "gainsboro", "ghost",
	"goldenrod", "green", "grey", "honeydew", "hot", "indian", "ivory", "khaki", "lace",
	"lavender", "lawn", "lemon", "light", "lime", "linen", "magenta", "maroon", "medium",
	"metallic", "midnight", "mint", "misty", "moccasin", "navajo", "navy", "olive", "orange",
	"orchid", "pale", "papaya", "peach", "peru", "pink", "plum", "powder", "puff", "purple",
	"red", "rose", "rosy", "royal", "saddle", "salmon", "sandy", "seashell", "sienna", "sky",
	"slate", "smoke", "snow", "spring", "steel", "tan", "thistle", "tomato", "turquoise",
	"violet", "wheat", "white", "yellow"}

var (
	typeS1       = []string{"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"}
	typeS2       = []string{"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"}
	typeS3       = []string{"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"}
	containerS1  = []string{"SM", "LG", "MED", "JUMBO", "WRAP"}
	containerS2  = []string{"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"}
	segments     = []string{"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"}
	priorities   = []string{"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"}
	shipModes    = []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
	instructions = []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
)

// retailCents is the spec's P_RETAILPRICE formula, in cents.
func retailCents(partkey int64) int64 {
	return 90000 + (partkey/10)%20001 + 100*(partkey%1000)
}

func (r *rng) partName(b []byte, words int) []byte {
	for i := 0; i < words; i++ {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, r.pick(colors)...)
	}
	return b
}

func (r *rng) partType(b []byte) []byte {
	b = append(b, r.pick(typeS1)...)
	b = append(b, ' ')
	b = append(b, r.pick(typeS2)...)
	b = append(b, ' ')
	return append(b, r.pick(typeS3)...)
}

func (r *rng) container(b []byte) []byte {
	b = append(b, r.pick(containerS1)...)
	b = append(b, ' ')
	return append(b, r.pick(containerS2)...)
}
