package names

// Word lists for synthetic One Piece cards, in TCGplayer's spelling (shared/data
// tcgplayer/68/3188/products.json): "Monkey.D.Luffy", "Tony Tony.Chopper",
// "Who's.Who", `Eustass"Captain"Kid`.

var OPCharacters = []string{
	"Monkey.D.Luffy", "Roronoa Zoro", "Nami", "Usopp", "Sanji", "Tony Tony.Chopper", "Nico Robin", "Franky", "Brook",
	"Jinbe", "Portgas.D.Ace", "Sabo", "Shanks", "Kaido", "Charlotte Linlin", "Boa Hancock", `Eustass"Captain"Kid`,
	"Trafalgar Law", "Kin'emon", "Who's.Who", "X.Drake", "Dracule Mihawk", "Crocodile", "Donquixote Doflamingo",
	"Yamato", "Kouzuki Oden", "Marco", "Edward.Newgate", "Buggy", "Rob Lucci", "Smoker", "Koby", "Uta", "Carrot",
	"Bartolomeo", "Cavendish", "Caribou", "Otama", "Izo", "Inuarashi", "Nekomamushi", "Kanjuro", "Perona", "Alvida",
	"Black Maria", "Page One", "Ulti", "Scratchmen Apoo", "Basil Hawkins", "Capone\"Gang\"Bege", "Jewelry Bonney",
	"Killer", "Urouge", "Charlotte Katakuri", "Charlotte Pudding", "Marshall.D.Teach", "Sakazuki", "Borsalino",
	"Kuzan", "Sengoku", "Monkey.D.Garp", "Issho", "Tashigi", "Hina", "Vegapunk", "Kalifa", "Kaku", "Nefeltari Vivi",
	"Karoo", "Gol.D.Roger", "Silvers Rayleigh", "Shirahoshi", "Hody Jones", "Arlong", "Enel", "Gecko Moria",
	"Bartholomew Kuma", "Jozu", "Vista", "Emporio.Ivankov", "Inazuma", "Kyros", "Rebecca", "Viola", "Sugar",
	"Trebol", "Diamante", "Pica", "Vergo", "Monet", "Caesar Clown", "Kozuki Momonosuke", "Kouzuki Hiyori", "Denjiro",
	"Raizo", "Kikunojo", "Shinobu", "Hyogoro", "Hitokiri Kamazo", "Queen", "King", "Jack", "Sasaki",
	"Charlotte Smoothie", "Charlotte Cracker", "Charlotte Perospero", "Charlotte Oven", "Baron Tamago",
	"Pekoms", "Vito", "Gotti", "Wadatsumi", "Fukaboshi", "Neptune", "Otohime", "Kuroobi",
	"Hachi", "Kuro", "Django", "Don Krieg", "Gin", "Pearl", "Wapol", "Dalton", "Kureha", "Dr. Hiriluk", "Bon Clay",
	"Mr.1(Daz.Bonez)", "Miss Doublefinger", "Mr.3(Galdino)", "Miss Goldenweek", "Pell", "Chaka", "Igaram", "Koza",
	"Wyper", "Gan.Fall", "Conis", "Ohm", "Satori", "Foxy", "Porche", "Spandam", "Blueno", "Jabra", "Kumadori", "Fukurou",
	"Iceburg", "Paulie", "Kokoro", "Chimney", "Lola", "Absalom", "Hogback", "Ryuma", "Duval", "Hatchan", "Shakky",
	"Sentomaru", "Kizaru", "Fujitora", "Ryokugyu", "Garp", "Bogard", "Helmeppo", "Coby", "Koala", "Hack",
	"Belo Betty", "Morley", "Lindbergh", "Karasu", "Stussy", "Lilith", "Edison", "Pythagoras", "Atlas", "York",
}

var OPEvents = []string{
	"Gum-Gum Jet Pistol", "Gum-Gum Fire-Fist Pistol Red Hawk", "Radical Beam!!", "Guard Point", "Diable Jambe",
	"Thunder Bagua", "Round Table", "Green Star Rafflesia", "Ulti-Mortar", "Sheep's Horn", "Elephant's Marchoo",
	"In Two Years!! At the Sabaody Archipelago!!", "Artificial Devil Fruit SMILE", "Gum-Gum Giant", "Oni Giri",
	"Three Sword Style Purgatory Onigiri", "Conquerer's Haki", "Room", "Shambles", "Gamma Knife", "Ice Age",
	"Magma Fist", "Yasakani Sacred Jewel", "Divine Departure", "Hiken", "Flame Emperor", "Gear Fifth", "Kamusari",
	"Blast Breath", "Soul Pocus", "Slave Arrow", "Desert Spada", "Ground Death", "Lightning Dragon", "Sea King",
}

var OPStages = []string{"Thousand Sunny", "Going Merry", "Moby Dick", "Onigashima Island", "Dressrosa", "Marineford",
	"Sabaody Archipelago", "Totto Land", "Alabasta", "Egghead", "Red Force", "Whole Cake Island"}

var OPSubtypes = []string{
	"Straw Hat Crew", "Supernovas", "Animal Kingdom Pirates", "The Four Emperors", "Land of Wano", "The Akazaya Nine",
	"Heart Pirates", "Whitebeard Pirates", "Former Whitebeard Pirates", "Red-Haired Pirates", "Navy", "Baroque Works",
	"The Seven Warlords of the Sea", "Big Mom Pirates", "Kid Pirates", "Minks", "Fish-Man", "SMILE", "Dressrosa",
	"Revolutionary Army", "CP9", "Film", "Animal", "Alabasta", "Thriller Bark Pirates", "Egghead", "Giant",
}

var OPAttributes = []string{"Slash", "Strike", "Ranged", "Special", "Wisdom"}

var OPColours = []string{"Red", "Green", "Blue", "Purple", "Black", "Yellow"}

// OPTexts are card effects with TCGplayer's HTML (<em> reminders, "\r\n<br>").
var OPTexts = []string{
	"[On Play] Draw 1 card.",
	"[DON!! x1] [When Attacking] K.O. up to 1 of your opponent's Characters with a cost of 2 or less.",
	"[Blocker] <em>(After your opponent declares an attack, you may rest this card to make it the new target of the attack.)</em>",
	"[Trigger] Play this card.",
	"[Rush] <em>(This card can attack on the turn in which it is played.)</em>",
	"[Activate:Main] [Once Per Turn] Give this Leader or 1 of your Characters up to 1 rested DON!! card.",
	"[On K.O.] Add up to 1 DON!! card from your DON!! deck and rest it.\r\n<br>[Trigger] Play this card.",
	"[Counter] Up to 1 of your Leader or Character cards gains +4000 power during this battle.",
	"[Main] K.O. up to 1 of your opponent's Characters with a cost of 4 or less.\r\n<br>\r\n[Trigger] Activate this card's [Main] effect.",
	"[DON!! x2] This Character cannot be K.O.'d in battle.",
	"[On Play] DON!! -1 <em>(You may return the specified number of DON!! cards from your field to your DON!! deck.)</em>: Draw 2 cards.",
}

var OPSetFirst = []string{
	"Romance", "Paramount", "Pillars of", "Kingdoms of", "Awakening of", "Wings of", "Emperors of", "Legacy of",
	"Voyage of", "Tides of", "Will of", "Dawn of", "Flames of", "Treasures of", "Storm of", "Legends of",
}

var OPSetSecond = []string{
	"Dawn", "War", "Strength", "Intrigue", "the New Era", "the Captain", "the Master", "the Grand Line", "the Sea",
	"Wano", "Egghead", "the Straw Hats", "Fate", "Freedom", "the Revolution", "the Emperors",
}

// OPDecks are the subjects of starter decks ("Starter Deck 1: Straw Hat Crew").
var OPDecks = []string{
	"Straw Hat Crew", "Worst Generation", "The Seven Warlords of the Sea", "Animal Kingdom Pirates", "Film Edition",
	"Absolute Justice", "Big Mom Pirates", "Monkey.D.Luffy", "Yamato", "Uta", "Zoro and Sanji", "3D2Y",
	"RED Edward.Newgate", "GREEN Uta", "BLUE Donquixote Doflamingo", "PURPLE Monkey.D.Luffy", "BLACK Smoker", "Egghead",
}

// opVariants are printings TCGplayer lists as products of their own under
// the base card's number.
const (
	OPParallel  = " (Parallel)"
	OPBoxTopper = " (Box Topper)"
	OPMangaAlt  = " (Parallel) (Manga) (Alternate Art)"
)
