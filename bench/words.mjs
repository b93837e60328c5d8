// Word lists for the benchmark corpus (bench/corpus.mjs).
//
// Each list is ordered roughly by everyday frequency, most common first, because
// corpus.mjs samples it with a Zipf–Mandelbrot law over the list position.
// The lists are data, not code: change them and the corpus fingerprints in
// bench/corpus-fingerprints.json must be regenerated (`node bench/run.mjs --update-fingerprints`).

/** Function words, kept in texts and paraphrase queries, dropped from keyword queries. */
export const STOPWORDS = `the a an to of and in for on with at by from about after before is was it that
this we i my our but or not be are were has had have will would can could should
so as if then than when while into over under again also just very all any some
its his her their there here he she they you your me us them what which who
does did do up off via per`.split(/\s+/);

export const NOUNS = `time meeting project report team client budget plan email call week day office
list idea problem issue task deadline document contract invoice payment order account
price customer product service update release feature bug test design review note
question answer lunch dinner breakfast coffee tea book movie song game trip flight hotel
train car bike house apartment room kitchen garden door window key phone laptop screen
password file folder backup server database network website app version draft slide
presentation workshop conference interview schedule calendar reminder birthday party
gift present family friend brother sister mother father son daughter wife husband
partner colleague manager boss neighbor doctor dentist teacher lawyer landlord
appointment prescription medicine allergy diet workout run walk swim yoga class lesson
course exam grade homework school university degree job salary bonus tax insurance
loan mortgage rent bill receipt refund discount sale store market shop restaurant cafe
bakery pharmacy bank library museum park beach mountain lake river city village street
road station airport ticket seat gate luggage passport visa map route weather rain
snow storm sun wind morning evening night weekend holiday vacation season spring summer
autumn winter recipe soup salad pasta pizza bread cheese chocolate cake fruit apple
orange banana vegetable tomato potato onion garlic rice chicken fish beef wine beer
water juice milk sugar salt pepper oil butter egg cookie sandwich burger noodle curry
dog cat bird horse plant flower tree grass seed pot vase lamp chair table desk sofa bed
shelf box bag wallet watch ring shirt shoe jacket coat hat dress sweater jeans sock
glove umbrella bottle cup glass plate bowl spoon fork knife towel soap shampoo
toothbrush battery charger cable adapter printer camera speaker headphone microphone
keyboard mouse monitor tablet router modem drive disk memory storage cloud
subscription license warranty repair mechanic engine tire brake oil filter paint wall
floor roof ceiling stairs elevator parking garage fence mail package delivery courier
address letter card stamp note notebook pen pencil paper calendar agenda minutes
summary proposal estimate quote offer deal strategy goal target metric dashboard
spreadsheet chart graph table column row field record entry log error warning crash
outage incident ticket request approval feedback survey interview candidate hiring
onboarding training mentor intern volunteer charity donation event concert festival
exhibition show theater film series episode podcast article blog newsletter magazine
newspaper story poem novel chapter page photo picture video album playlist
hobby sport football tennis golf chess puzzle guitar piano violin drum lesson
habit routine sleep dream stress mood energy headache fever cold cough flu vaccine
checkup surgery therapy massage hospital clinic nurse patient insurance claim form
signature deadline milestone sprint backlog roadmap launch campaign brand logo
website domain hosting certificate encryption token secret credential permission
role group channel thread message chat comment reply mention notification`.split(/\s+/);

// Base form, past form. Irregular pasts are spelled out; the rest take -ed.
export const VERBS = `call:called send:sent meet:met buy:bought book:booked pay:paid fix:fixed
check:checked review:reviewed move:moved cancel:cancelled finish:finished start:started
write:wrote read:read update:updated share:shared plan:planned order:ordered
return:returned visit:visited ask:asked tell:told find:found lose:lost forget:forgot
remember:remembered schedule:scheduled confirm:confirmed approve:approved reject:rejected
deliver:delivered ship:shipped sign:signed print:printed scan:scanned upload:uploaded
download:downloaded install:installed upgrade:upgraded test:tested deploy:deployed
merge:merged rename:renamed delete:deleted archive:archived backup:backed clean:cleaned
cook:cooked bake:baked eat:ate drink:drank run:ran walk:walked drive:drove fly:flew
travel:travelled pack:packed rent:rented borrow:borrowed lend:lent repair:repaired
replace:replaced charge:charged reset:reset rebuild:rebuilt refactor:refactored
discuss:discussed present:presented prepare:prepared organize:organized invite:invited
join:joined leave:left celebrate:celebrated recommend:recommended prefer:preferred
like:liked love:loved hate:hated try:tried choose:chose decide:decided agree:agreed
promise:promised suggest:suggested mention:mentioned note:noted track:tracked
measure:measured compare:compared estimate:estimated negotiate:negotiated hire:hired
train:trained teach:taught learn:learned practice:practiced paint:painted plant:planted
water:watered feed:fed adopt:adopted renew:renewed register:registered submit:submitted`
  .split(/\s+/)
  .map((pair) => pair.split(":"));

export const ADJECTIVES = `new old big small good bad quick slow early late important urgent quarterly
monthly weekly daily annual final first last next previous main local remote public
private internal external shared personal favorite expensive cheap free broken fixed
missing extra spare red blue green black white yellow grey dark light warm cold hot
fresh spicy sweet sour quiet loud busy empty full short long simple complex easy hard
open closed secure stable beta draft legacy current future strange funny boring
interesting healthy sick tired happy angry calm nervous gluten vegan organic local
digital paper wooden metal plastic glass small tiny huge narrow wide heavy light`
  .split(/\s+/);

export const ADVERBS = `quickly slowly finally again already soon later early carefully nearly
almost mostly usually often rarely never always suddenly eventually probably`.split(/\s+/);

export const FIRST_NAMES = `Alice Bob Carol David Emma Frank Grace Henry Isabel Jack Karen Liam Maria
Noah Olivia Peter Quinn Rachel Sam Tina Umar Vera Walter Xenia Yusuf Zoe Anna Ben Chloe
Daniel Elena Felix Gabriel Hannah Ivan Julia Kevin Laura Marco Nina Oscar Paula Raj
Sofia Thomas Ursula Victor Wendy Yara Zach Amir Bianca Carlos Diana Erik Fatima Giulia
Hugo Ingrid Jonas Kiara Lucas Mei Nadia Omar Priya Ravi Sara Tomas Uma Valentina
Wei Ximena Yuki Zainab Aaron Beatriz Cedric Dalia Elif Farid Greta Hiro Ines Jorge Kai
Lena Milan Nora Otto Pablo Rosa Sven Tara Ulla Vikram Wanda Yosef`.split(/\s+/);

export const LAST_NAMES = `Smith Johnson Chen Garcia Muller Rossi Kowalski Nguyen Silva Kim Patel
Schmidt Dubois Tanaka Ivanov Hansen Novak Lopez Martin Bernard Costa Jansen Larsen
Fischer Weber Moreau Ricci Santos Yilmaz Haddad Okafor Mensah Singh Sharma Wong Park
Sato Suzuki Andersson Nilsson Virtanen Horvath Popescu Petrov Kovacs Murphy Kelly Byrne
Walsh OBrien Taylor Brown Wilson Evans Thomas Roberts Walker Wright Hughes Green Hall
Wood Clarke Jackson Turner Hill Moore Cooper Ward Morris King Baker Harris Lewis Young
Allen Scott Adams Mitchell Campbell Carter Phillips Parker Edwards Collins Stewart
Morales Ortiz Ramos Reyes Cruz Flores Torres Rivera Gomez Diaz Vargas Castro Romero`.split(/\s+/);

export const PLACES = `London Paris Berlin Madrid Rome Lisbon Amsterdam Brussels Vienna Prague
Warsaw Budapest Dublin Oslo Stockholm Copenhagen Helsinki Zurich Geneva Munich Hamburg
Milan Naples Barcelona Valencia Porto Lyon Marseille Antwerp Rotterdam Krakow Athens
Istanbul Cairo Nairobi Lagos Accra Johannesburg Dubai Mumbai Delhi Bangalore Singapore
Bangkok Jakarta Manila Tokyo Osaka Seoul Beijing Shanghai Sydney Melbourne Auckland
Toronto Montreal Vancouver Chicago Boston Seattle Denver Austin Miami Atlanta Houston
Phoenix Portland Oakland Brooklyn Lima Bogota Santiago Quito Havana Reykjavik Tallinn
Riga Vilnius Ljubljana Zagreb Sofia Bucharest Belgrade Sarajevo Tirana Valletta
Seville Granada Bilbao Bordeaux Nantes Lille Utrecht Leiden Ghent Bruges Salzburg Graz
Innsbruck Basel Lausanne Turin Bologna Florence Verona Palermo Cork Galway Edinburgh
Glasgow Manchester Liverpool Leeds Bristol Oxford Cambridge Brighton York Bath`.split(/\s+/);

export const COMPANY_SUFFIXES = ["Labs", "Systems", "GmbH", "Ltd", "Group", "Partners", "Logistics", "Studio", "Health", "Bank"];

export const RELATIONS = ["sister", "brother", "mother", "father", "cousin", "aunt", "uncle", "daughter", "son", "neighbor", "roommate", "partner"];

export const JOBS = `engineer designer nurse teacher accountant lawyer architect chef pilot
journalist developer analyst consultant pharmacist electrician plumber librarian
photographer researcher translator veterinarian dentist manager recruiter`.split(/\s+/);

export const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
export const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
export const CURRENCIES = ["EUR", "USD", "GBP", "CHF", "JPY"];
export const TOPICS = ["work", "personal", "travel", "finance", "health", "family", "project", "shopping"];
export const TAGS = `urgent followup idea todo waiting done billing infra frontend backend
home school kids pets car garden recipe fitness books music`.split(/\s+/);

// Syllables for the synthetic long tail (jargon, product names, rare words).
export const ONSETS = ["b", "br", "c", "ch", "cl", "d", "dr", "f", "fl", "g", "gr", "h", "j", "k", "l", "m", "n", "p", "pl", "pr", "qu", "r", "s", "sh", "sk", "st", "t", "tr", "v", "w", "z"];
export const NUCLEI = ["a", "e", "i", "o", "u", "ai", "ea", "io", "ou", "y"];
export const CODAS = ["", "", "", "n", "r", "l", "s", "t", "m", "x", "nd", "rk", "st", "ng"];
