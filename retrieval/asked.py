"""What kind of value a question asks for, and which passages hold one.

"What time do you close on Saturday?" wants a time, "Πόσο κοστίζει ένα δίκλινο;" a
price, "Waar zitten jullie precies?" an address. The embedding model ranks best the
passage that talks most like the question ("Saturdays are busy, please book ahead"),
while the answer often stands in a table or list of the same page that reads nothing
like it ("| Saturday | 9:30 – 14:00 |"). A passage without any value of the kind
asked for cannot answer: when the best passage holds none, the best one that does and
matched nearly as well goes first (`asked_first`).

The questions' wording is read in the languages the contact card reads; the values
are told apart by their shape, which is much the same in all of them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Literal

from ingest.extract.facts import (
    PERSIAN_LETTERS,
    days_of,
    hours_line_days,
    mentions_address,
    mentions_chat,
    mentions_email,
    mentions_phone,
    names_full_day,
    names_weekend,
    names_working_week,
    news_page,
    spoken_days,
)
from ingest.extract.templates import SITE_DOCUMENT_FRAGMENT
from ingest.kb.store import Hit

Kind = Literal["time", "price", "phone", "email", "address", "chat"]

# "If I send you an email, how long…", "Can I book by phone?", "Kann ich per E-Mail
# buchen?": the way of asking, not the number or address asked for ("via WhatsApp" still
# wants the number; "Do you have a phone number?" does too). Left out before the kinds are read.
_WAY_OF_ASKING = re.compile(
    r"\b(?:send|write|drop|shoot)\s+(?:you|us)\s+(?:an?\s+)?(?:e-?mail|mail|message|text)\b"
    r"|\b(?:by|via|per|por|par|al|über|pelo|pela|tramite|pe|prin|po)\s+(?:e-?mail|mail|phone|telephone|teléfono|telefon|"
    r"téléphone|telefono|telefone|correo|courriel|correu|telèfon|e-?pošti|telefonu)\b",
    re.IGNORECASE,
)
_ASKED: dict[Kind, re.Pattern] = {
    "time": re.compile(
        r"\b(?:what time|which time|until when|till when|how late|how early|open(?:ing)? times|(?<!many )hours|"
        r"when do you (?:open|close)|when are you open|"
        r"um wie ?viel uhr|uhrzeit|bis wann|ab wann|wann (?:öffnet|schließt|schliesst|habt|haben|macht|ist .{0,20}"
        r"(?:offen|geöffnet))|öffnungszeiten|sprechzeiten|"
        r"a qué hora|hasta qué hora|desde qué hora|horarios?|cuándo (?:abren|cierran)|"
        r"quelle heure|horaires?|heures d'ouverture|quand (?:ouvrez|fermez)|"
        r"a che ora|fino a che ora|da che ora|orari|orario|quando (?:aprite|chiudete)|"
        r"que horas|até que horas|horários?|quando (?:abrem|fecham)|"
        r"hoe laat|tot hoe laat|vanaf hoe laat|openingstijden|openingsuren|"
        r"saat kaç\w*|kaçta|kaça kadar|kaçtan kaça|çalışma saatleri|açılış saati|"
        r"τι ώρα|τι ώρες|ωράριο|μέχρι τι ώρα|από τι ώρα|ώρες λειτουργίας|"
        r"o której|do której|od której|godziny otwarcia|w jakich godzinach|"
        r"v kolik|do kolika|od kolika|otevírací doba|kdy máte otevřeno|"
        r"o koľkej|do koľkej|od koľkej|otváracie hodiny|ordinačné hodiny|kedy (?:máte otvorené|otvárate|zatvárate|ordinujete)|"
        r"när öppnar|när stänger|öppettider|åbningstider|åpningstider|når (?:åpner|stenger)|hvornår (?:åbner|lukker)|"
        r"la ce or[ăa]|până la ce or[ăa]|de la ce or[ăa]|până la c[âa]t|până c[âa]nd|c[âa]nd (?:deschideți|închideți)|"
        r"programul|program de (?:lucru|funcționare|vară|iarnă)|orar(?:ul)?|hány órá\w*|meddig|mikortól|nyitvatartás\w*|mikor (?:nyit|zár)\w*|"
        r"mihin aikaan|monelta\w*|mihin asti|mistä asti|aukioloaj\w*|aukiolo\w*|milloin (?:te )?(?:olette|ootte|on) auki|"
        r"kauanko (?:te )?(?:olette|ootte) auki|"
        r"mấy giờ|giờ nào|giờ mở cửa|giờ làm việc|mở cửa (?:lúc|từ|đến)|đóng cửa (?:lúc|mấy)|mở tới|mở đến|"
        r"jam berapa|(?:buka|tutup) (?:dari |sampai |mulai )?jam|jam (?:buka|tutup|operasional|kerja|kantor)|sampai jam|"
        r"о котрій|до котрої|з котрої|графік\w*|години роботи|режим роботи|коли (?:ви )?(?:працюєте|відкриті|відчиняєтесь)|"
        r"u kol?i?ko sati|do kad[a]?|od kad[a]?|radno vrijeme|kad(?:a)? (?:radite|ste otvoreni)|"
        r"во сколько|до скольки|со скольки|с какого времени|режим работы|часы работы|график\w*|когда (?:вы )?работаете|"
        r"в колко часа|до колко часа|от колко часа|работно време|кога (?:отваряте|затваряте|отваря|затваря)|"
        r"a quina hora|fins a quina hora|des de quina hora|fins quan|horaris?|quan (?:obriu|tanqueu|obre|tanca)|"
        r"ob kateri uri|do kdaj|od kdaj|do katere ure|od katere ure|delovni čas|ordinacijski čas|odpiralni čas|urnik|"
        r"kdaj (?:ste odprti|odprete|zaprete|odpirate|zapirate|delate|ordinirate|imate odprto)|"
        # Estonian, Lithuanian, Latvian
        r"mis kell\w*|kella mitme\w*|mis ajani|lahtiolekua\w*|tööa(?:eg|jad)|millal (?:te )?(?:avate|sulgete|olete (?:avatud|lahti))|"
        r"kelint\w* valand\w*|iki keli\w*|nuo keli\w*|darbo (?:laik\w*|valand\w*)|kada (?:jūs )?(?:dirbate|atsidarote|užsidarote)|"
        r"cikos|līdz cikiem|no cikiem|darba laik\w*|kad (?:jūs )?(?:strādājat|atverat|aizverat|esat atvērti))\b"
        r"|몇 ?시|언제까지|언제부터|영업 ?시간|진료 ?시간|운영 ?시간|何時|営業時間|診療時間|受付時間|几点|幾點|营业时间|營業時間|門診時間|看診時間"
        r"|กี่โมง|กี่ทุ่ม|เวลาเปิด|เวลาทำการ|لإيمتى|لايمتى|إيمتى|ايمتى|متى|الساعة كم|أي ساعة|ساعات الدوام|مواعيد"
        r"|(?<![\u05d0-\u05ea])(?:עד מתי|מאיזו שעה|מאיזה שעה|עד איזו שעה|עד איזה שעה|באיזו שעה|באיזה שעה|באיזה שעות|"
        r"מתי (?:אתם )?(?:פותחים|סוגרים|פתוחים)|ה?שעות (?:ה)?(?:פתיחה|פעילות))"
        rf"|(?<![{PERSIAN_LETTERS}])(?:ساعت چند|تا ساعت چند|از ساعت چند|تا چه ساعتی|چه ساعتی|ساعا?ت کاری|ساعات پذیرش|"
        r"کی (?:باز|تعطیل)|تا کی (?:باز|هستید|هستین))",
        re.IGNORECASE,
    ),
    "price": re.compile(
        r"\b(?:how much|costs?|prices?|pricing|charges?|fees?|rates|"
        r"was kostet|was kosten|wie ?viel kostet|kostet|preise?|kosten|gebühren?|"
        r"cuánto (?:cuesta|cuestan|vale|valen|cobran|sale|es)|precios?|tarifas?|costo|coste|"
        r"combien|prix|coûte|coûtent|tarifs?|"
        r"quanto (?:costa|costano|viene|vengono)|prezzo|prezzi|tariffa|"
        r"quanto (?:custa|custam|sai|fica|tá|está|cobra\w*)|preços?|"
        r"wat kost|hoeveel kost\w*|prijs|prijzen|tarief|"
        r"ne kadar(?! sür)|fiyat\w*|ücret\w*|kaç lira|kaç para|"
        r"πόσο (?:κοστίζει|κοστίζουν|κάνει|κάνουν|έχει)|τιμή|τιμές|κόστος|"
        r"ile (?:kosztuje|kosztują|płacę|zapłacę)|cena|ceny|cennik|koszt|"
        r"kolik (?:by |to )?(?:stojí|stál\w*|stojej|zaplatím|platím)|ceník|"
        r"koľko (?:\w+ ){0,3}(?:stojí|stoja|stál\w*|zaplatím|platím)|cenník|"
        r"vad kostar|hvad koster|hva koster|hur mycket|hvor (?:mye|meget)|kostar|koster|priser?|"
        r"c[âa]t (?:costă|costa|e|este|mă costă|ne costă|face|ar costa|ar fi)|pre[țţ]\w*|pretul|preturi\w*|tarif\w*|"
        r"mennyibe (?:kerül|kerülne)|mennyi(?:t)? kell fizet\w*|árak\w*|díj\w*|"
        r"paljonko|kuinka paljon|mitä (?:\w+ ){0,3}maksaa|hinta|hinnat|hinnasto\w*|hintaa|"
        r"bao nhiêu tiền|giá bao nhiêu|giá|bảng giá|(?<!số )(?:bao )?nhiêu(?=\s*(?:tiền|vậy|ạ|à|em|chị|anh|ha|nhỉ|[?,.!]|$))|chi phí|phí|tốn|"
        r"скільки (?:\w+ ){0,2}(?:коштує|коштують|коштуватиме|буде коштувати|стоїть|платити)|ціна|ціни|цін|вартість|прайс\w*|"
        r"сколько (?:\w+ ){0,2}(?:стоит|стоят|будет стоить|платить)|цена|цены|стоимость|"
        r"колко (?:\w+ ){0,2}(?:струва|струват|излиза|излезе|плащам|плаща|платим|взимате)|колко е (?:цената|нощувката|допълнително)|цени|ценоразпис|такса|"
        r"harga\w*|biaya\w*|ongkos\w*|(?:sewa\w*|bayar|charge|kena|denda\w*|deposit\w*)(?: \w+){0,4} berapa|berapa (?:harga|biaya|ongkos|duit|rupiah|ribu)|"
        r"kol?i?ko (?:\w+ ){0,2}(?:košta|koštaju|košto|se plaća|plaćamo|bi bila|bi bilo|tražite)|cijena|cijene|cjenik|"
        r"quant (?:\w+ ){0,2}(?:costa|costen|costaria|val|valen|és|cobreu|cobren|surt|pago|pagaria)|preus?|"
        r"koliko (?:\w+ ){0,2}(?:stane|stanejo|bi stalo|bo stalo|plačam|plačamo|zaračunate|računate)|koliko bi (?:me |nas )?stalo|cenik\w*|"
        r"kui palju (?:\w+ ){0,2}(?:maksab|maksavad|maksaks|maksma|võtate|küsite)|hind|hinnad|hinda|hinnakiri|maksumus|"
        r"kiek (?:\w+ ){0,2}(?:kainuoja|kainuotų|kainuos|kaštuoja|mokėti|moku|sumokėti|imate)|kain(?:a|os|ą|ų|oje|uoja|uotų|uos|oraštis|oraščio|ynas|yną)|"
        r"cik (?:\w+ ){0,2}(?:maksā|maksās|maksātu|izmaksā)|cenrādi\w*|izmaksas)\b"
        r"|얼마|가격|비용|요금|いくら|料金|値段|価格|多少钱|多少錢|价格|價格|價錢|費用|收費|"
        r"เท่าไหร่|เท่าไร|ราคา|ค่าเรียน|ค่าบริการ|قديش|قدّيش|كم سعر|سعر|أسعار|اسعار|تكلفة|كم بتكلف|كم بكلف|(?<![\u0600-\u06ff])بكم(?=\s*[؟?]|\s*$)"  # "بكم" is also "with you"
        r"|(?<![\u05d0-\u05ea])(?:כמה (?:\w+ ){0,2}(?:עולה|עולים|עולות|זה עולה|לוקחים|גובים|צריך לשלם|משלמים)|ה?מחיר(?:ים)?|מחירון)(?![\u05d0-\u05ea])"
        # Persian "چقدر" (how much) is also "how long" or "how far" before those words
        rf"|(?<![{PERSIAN_LETTERS}])(?:چقدر(?:ه)?(?!\s*(?:طول|وقت|راه|فاصله|دور|زمان|صبر|شلوغ))|(?<!ساعت )چند(?:ه| میشه| درمیاد| تومن| تومان)|ق[یي]مت\S*|هز[یي]نه\S*|تعرفه\S*)(?![{PERSIAN_LETTERS}])",
        re.IGNORECASE,
    ),
    "phone": re.compile(
        r"\b(?:phone|telephone|call you|ring you|your number|text (?:you|us)|"
        r"(?:what|which)(?:'s| is)? (?:the |your )?number(?! of)|"
        r"telefon\w*|teléfono|numéro|téléphone|telefono|telefone|telefoon\w*|"
        r"número(?! (?:máximo|mínimo|de))|numara\w*|τηλέφωνο|τηλέφωνα|numer telefonu|číslo|nummer|"
        r"num[ăa]r(?:ul)?(?! de)|v[ăa] pot suna|s[ăa] v[ăa] sun|hívhat\w*|puhelin\w*|numero(?! (?:di|de|massimo|minimo|máximo|mínimo))|numeronne|"
        r"soittaa|soitan|số điện thoại|điện thoại|sđt|số mấy|số nào|hotline|zalo|nomor (?:telepon|telp|hp|wa|whatsapp|kantor|kontak)\w*|telepon\w*|telp|"
        r"ditelepon|menelepon|телефон\w*|подзвонити|зателефонувати|дзвонити|позвонить|звонить|"
        # "номер" is a hotel room too ("які номери у вас є?"): a number asked for, or a phone's
        r"(?:на )?(?:який|яким|какой|каким|ваш|ваш\w+) номер|номер (?:телефон\w*|реєстратур\w*|регистратур\w*|вайбер\w*|viber)|broj(?:a)? (?:telefona|mobitela|mobilnog|mobitel|whatsappa?|vibera?|za (?:poziv|kontakt))|(?:vaš|koji je|vam je|imate li|imate|dajte mi|dat) broj|broj od|nazvati|nazovem|"
        r"telèfon|trucar|truco|us puc trucar|telefonsk\w* številk\w*|(?:vaš\w*|kater\w*) (?:je )?(?:vaš\w* )?številk\w*|poklicati|pokličem|"
        r"numbri\w*|helistada|helistan|helistama|numer(?:į|is|iu|io)|paskambinti|skambinti|tālru\w*|numur\w*|piezvanīt|zvanīt)\b"
        r"|\bwhatsapp\b|전화|電話|电话|手機|號碼|号码|เบอร์|โทร(?!ทัศน์)|تلفون|تليفون|هاتف|موبايل|واتس|رقمكم|"
        r"(?:ال)?رقم (?:ال)?(?:تلفون|تليفون|هاتف|جوال|موبايل|واتس\w*|أرضي|تواصل|اتصال)|"
        r"(?<![\u05d0-\u05ea])[ובלמה]{0,2}(?:טלפון|וואטסאפ|ווטסאפ|ווצאפ|וואצאפ)|"
        r"(?<![\u05d0-\u05ea])(?:להתקשר|מספר של|המספר שלכם|המספר שלך|מספר הטלפון|ה?מספר ה?נייד|הנייד שלכם)|"
        rf"(?<![{PERSIAN_LETTERS}])(?:شماره(?! کارت| حساب)|تلفن|موبایل|واتساپ|واتس\u200cاپ|تماس بگیرم|زنگ بزنم)",
        re.IGNORECASE,
    ),
    "email": re.compile(
        r"\b(?:e-?mail\w*|(?<!-)mail|correo|courriel|e-?posta|e-?post\w*|posta elettronica|ηλεκτρονικ\w*|mejl\w*|sähköpost\w*|"
        r"(?:електронн\w* )?пошт\w*|(?:электронн\w* )?почт\w*|імейл\w*|емейл\w*|имейл\w*|correu|adreça electrònica|e-?pošt\w*|e-?naslov\w*|elektronsk\w* naslov\w*|meili\w*|el\.? ?pašt\w*|elektronin\w* pašt\w*|e-?past\w*)\b"
        r"|이메일|메일|メール|邮箱|郵件|信箱|(?<=[\u4e00-\u9fff])e-?mail|อีเมล|إيميل|ايميل|بريد|מייל|דוא\"ל|דוא״ל|אימייל|ایمیل|پست الکترونیک",
        re.IGNORECASE,
    ),
    "address": re.compile(
        # "the e-mail address", "E-Mail-Adresse", "adresse e-mail", "dirección de correo" ask for
        # an e-mail; "where can I park?" for no address
        r"\b(?:(?<!mail )(?<!mail-)(?<!meili )(?<!posti )(?<!pašto )(?<!pasta )(?<!mailovou )"
        r"(?:address|adresse|adres|adresa|dirección|indirizzo|endereço|aadress\w*|adresas|adresu|adreso|adrese|adresi)"
        r"(?!\s*(?:de |di |do )?(?:e-?mail|correo|courriel|mail|electr))|"
        r"where are you|where is your|where exactly|located|find you|"
        r"dónde (?:están|está|queda|quedan|se encuentra)|anschrift|wo (?:seid|sind|genau|befinde\w*|finde)|"
        r"où (?:êtes|se trouve|vous trouver|sont)|dove (?:siete|si trova|vi trovate|sta)|"
        r"onde (?:fica|ficam|estão|é a clínica|vocês)|waar (?:zitten|zijn|is|vind)|nerede\w*|nerdesiniz|"
        r"διεύθυνση|πού (?:βρίσκεστε|βρίσκεται|είστε)|gdzie|kde (?:jste|sídlíte|vás najdu|se nachází)|kde (?:presne )?(?:sa nachádza\w*|ste|vás nájdem|sídlite)|"
        r"var ligger|hvor (?:ligger|er i)|unde (?:sunteți|sunteti|vă aflați|va aflati|aveți|e|este|vă găsesc|vă găsim)|"
        r"pe ce stradă|hol (?:vagytok|vannak|van|található|találom|találhatók)|"
        r"osoite\w*|katuosoite\w*|missä (?:te )?(?:olette|ootte|sijaitsette|päin)|"
        r"địa chỉ|ở đâu|chỗ nào|đường nào|nằm ở|alamat\w*|di ?mana (?:(?:kantor|lokasi|tempat)\w*|ya|sih)|"
        r"адрес\w*|де (?:ви|ваша|знаходиться|знаходитесь|розташован\w*)|где (?:вы|ваша|находится|находитесь)|gdje ste|di ste (?:vi|točno|smješteni)|gdje se nalazite|kako (?:da )?vas nađem|"
        r"adreça(?! electrònica)|on (?:sou|esteu|és|està|queda|són|teniu|us trobo|us trobem)|(?<!-)(?<!e-poštni )(?<!epoštni )(?<!ronski )(?<!mail )naslov\w*|kje (?:ste|se nahaja\w*|vas najdem|je vaš\w*|imate|točno)|kako pridem do vas|"
        r"kus (?:te )?(?:asute|olete|asub|asuvad|teid leida)|"
        r"kuidas (?:teieni|teid) \w+|kur (?:jūs )?(?:esate|randatės|įsikūrę|yra|atrodaties|atrodas|esat)|kaip (?:jus )?rasti|kā (?:jūs )?atrast)\b|주소|어디|위치|住所|どこ|地址|在哪|"
        r"อยู่ที่ไหน|อยู่ตรงไหน|ที่อยู่|(?<![\u0600-\u06ff])(?:وين|أين|فين)(?![\u0600-\u06ff])|عنوان|مكانكم|موقعكم|"
        r"(?<![\u05d0-\u05ea])[ובלמה]{0,2}כתובת(?! ה?(?:מייל|דוא|אימייל))|(?<![\u05d0-\u05ea])(?:איפה אתם|איפה נמצא|איפה החנות|איפה המשרד|איפה הקליניקה|באיזה רחוב)|"
        rf"(?<![{PERSIAN_LETTERS}])(?:(?:آدرس|نشانی)(?! ایمیل)|[کك]جا(?:ست|یید|یین| هستید| هستین| است| قرار دارید))(?![{PERSIAN_LETTERS}])",
        re.IGNORECASE,
    ),
    # A messenger whose ID is no phone number: "有沒有LINE啊？", "มีไลน์ร้านไหม", "카톡 아이디". WhatsApp,
    # Viber and Zalo are reached at a number (asked for as a phone).
    "chat": re.compile(
        # "LINE", or "Line" inside a sentence ("Do you have Line?"); not "wait in line", "book on line"
        r"(?-i:(?<![A-Za-z])LINE(?![A-Za-z])|(?<=\w )Line\b)|\bline (?:id|account|official)\b|"
        r"\bkakao ?talk\b|\bwechat\b(?! ?pay)|\btelegram\w*|телеграм\w*|"
        r"ไลน์|ライン|카톡|카카오톡|카카오|微信|텔레그램",
        re.IGNORECASE,
    ),
}

# A time of day: "14:00", "9h30", "18.00 Uhr", "9.00 – 18.00", "13.00'e kadar", "7 pm", "19 Uhr", "오후
# 6시", "18時", "alle 22", "às 19", "klo 11–14"; not "12.50" or "25.00 – 35.00" (prices), "2시간", "3 h" or
# "ab 18 Jahren". *ours*
_CLOCK_DOT = r"(?<![\d.,])(?:[01]?\d|2[0-4])\.[0-5]\d"  # "9.00", "18.30": an hour, then minutes
_TIME = re.compile(
    r"(?<![\d.,:])\d{1,2}:\d{2}(?!\d)|(?<![\d.,])\d{1,2}h\d{2}\b|(?<![\d.,])\d{1,2}h(?=\s*(?:[-–—]|à|a|às|\d))"
    rf"|{_CLOCK_DOT}(?:\s*(?:uhr|uur|u\b|h\b)|'\w|\s*[-–—]\s*{_CLOCK_DOT}(?!\d))"
    r"|(?<![\d.,])\d{1,2}\s?(?:am|pm|a\.m\.|p\.m\.|uhr|uur|π\.μ\.|μ\.μ\.)(?!\w)|(?:오전|오후)\s?\d|\d{1,2}\s?시(?!간)"
    r"|\d{1,2}時(?!間)|\b(?:alle|dalle|às|a las|de las|desde las|hasta las|στις)\s\d{1,2}\b(?![.,:]?\d|-)"
    r"|\b(?:klo|kl\.)\s?\d{1,2}(?:[.:]\d{2})?\b|\bpukul\s\d{1,2}[.:]\d{2}\b"
    # Catalan "10–14 h", "de 10 a 14 h"; Slovenian "od 8. do 16. ure", "ob 8. uri"
    r"|(?<![\d.,])\d{1,2}(?:[.:]\d{2})?\s?(?:[-–—]|a)\s?\d{1,2}(?:[.:]\d{2})?\s?h\b|(?<![\d.,])\d{1,2}\.\s?(?:ure|uri)\b"
    # Persian "ساعت ۹", "۷ تا ۱۳", "۸ الی ۱۴": not "۲ تا ۳ نفر" (two to three people)
    r"|ساعت\s?\d{1,2}(?!\d)|(?<![\d.,])\d{1,2}\s?(?:تا|الی|لغایت)\s?\d{1,2}(?![\d.,%])(?!\s?(?:نفر|روز|ماه|سال|درصد|جلسه|نوبت|ساعت))",
    re.IGNORECASE,
)
# An amount of money, or its absence: "€ 95", "CHF 590.–", "75 €", "1,20 €", "3만 원",
# "1,500円", "80 zł", "free". *ours* A number is read from the start of its run of digits
# and separators, once and never given back (`*+`): tried from every digit of a long run,
# as before, a passage of 2,000 digits took a second to check at each search.
_PRICE = re.compile(
    r"[$€£¥₺₩₹₴₽]\s?\d|\b(?:CHF|EUR|USD|GBP|Fr\.|SEK|NOK|DKK|PLN|CZK|TRY|TL|R\$|VND|VNĐ|Rp\.?|IDR|UAH|BGN)\s?\d"
    r"|(?<![\d.,'])[.,']*+\d[\d.,']*+\s?(?:€|EUR|USD|GBP|CHF|TL|₺|kr\.?|zł|Kč|lei|RON|Ft|HUF|euros?|lira|dólares|pesos|reais|UF|원|円|유로|엔|đ|₫|đồng|VND|VNĐ|грн|₴|UAH|гривень|гривні|руб|₽|рублей|лв|лева|BGN)(?!\w)"
    r"|(?<!\d)\d++\s?만\s?원|(?<![\d.,])[.,]*+\d[\d.,]*+\s?(?:元|บาท|دينار|د\.أ|₪|ש\"ח|ש״ח|ש''ח|שח(?![\u05d0-\u05ea])|שקל\w*|(?-i:ILS|NIS)\b|(?:هزار|میلیون)?\s?(?:تومان|تومن|ریال))"
    r"|(?:NT\$|THB|฿|JOD|₪)\s?\d|\b(?-i:ILS|NIS)\s?\d"
    r"|(?<!feel )(?<![-\w])free\b|\b(?:gratis|gratuit\w*|kostenlos|gratuito|ücretsiz|δωρεάν|bezpłatn\w*|zdarma|ingyen\w*)\b"
    r"|무료|無料|免费",
    re.IGNORECASE,
)
_HOLDS: dict[Kind, Callable[[str], bool]] = {
    "time": lambda text: bool(_TIME.search(text)),
    "price": lambda text: bool(_PRICE.search(text)),
    "phone": mentions_phone,
    "email": mentions_email,
    "address": mentions_address,
    "chat": mentions_chat,
}
# A passage holding what is asked for goes first when its fused score is at least this
# share of the best one's. Fused scores are close together (the 40th of both
# rankings still has two thirds of the first's), so this keeps out only what one ranking
# alone found far down. *ours*
ASKED_FIRST_MIN_SHARE = 0.6
# "How much is …?" gets a passage listing prices (a table's row, a list's item) before
# one that says a price in passing (an FAQ's "repairs cost the $89 service call", a news
# post's), when it matched at least this share of the best: on the forty-one harness
# sites 0.9 gave page @1 +7 and answer @1 +6 against the best holder first, 0.75 page
# @1 +7 but answer @1 +3 (price lists of other items), 0.95 page @5 -1. *ours*
PRICE_LIST_MIN_SHARE = 0.9
# A news post's value gives way to a standing page's that matched at least this share of
# the best passage: on the forty-five harness sites 0.9 and 0.75 moved page @1 +1 and
# +2 and answer @1 +1 and +3, none down; 0.6 put a news post's dated hours and a
# recommended tavern's number second. *ours*
NEWS_YIELDS_SHARE = 0.75


# "Are you open on Sunday?", "Habt ihr samstags offen?", "а ви в неділю працюєте?": whether
# the business opens on a day is a question for that day's hours. *ours*
_OPEN = re.compile(
    r"\b(?:open|opened|offen|geöffnet|abren|abierto|abiertos|abrís|ouvert|ouverts|ouvrez|aperti|aperto|aprite|"
    r"aberto|abertos|abrem|geopend|open zijn|açık|açıkmısınız|czynne|otwarte|otevřeno|máte otevřeno|otvorené|otvorení|ordinujete|öppet|öppna|"
    r"åbent|åpent|ανοιχτά|ανοιχτό|deschis|deschideți|nyitva|auki|avoinna|mở cửa|buka|працюєте|працює|відкриті|"
    r"работаете|работает|открыты|работите|отворено|отворена|отворени|otvoreni|otvoreno|radite|obert|oberts|oberta|obriu|odprto|odprti|odprta|delate|ordinirate|avatud|lahti|dirbate|dirba|atidaryta|strādājat|atvērts|atvērti)\b|영업|営業|開いて|有開|開門|看診|營業|เปิด|فاتحين|بتفتحوا|تفتحون|مفتوحين|فاتح|"
    r"פתוחים|פתוח|פתוחה|עובדים|לקפוץ|לבוא|"
    rf"(?<![{PERSIAN_LETTERS}])باز(?:ه|ید|ین| هستید| هستین| است| میشه| می\u200cکنید)?(?![{PERSIAN_LETTERS}])",
    re.IGNORECASE,
)


def asked_kinds(question: str) -> tuple[Kind, ...]:
    """The kinds of value `question` asks for (none for most questions)."""
    question = _WAY_OF_ASKING.sub(" ", question)
    kinds = tuple(kind for kind, asked in _ASKED.items() if asked.search(question))
    if "chat" in kinds and "phone" in kinds:
        kinds = tuple(kind for kind in kinds if kind != "chat")  # "which number is your Viber?": the number
    if (
        "time" not in kinds
        and _OPEN.search(question)
        and (names_full_day(question) or names_weekend(question) or names_working_week(question))
        and 0 < len(spoken_days(question)) < 7
    ):
        kinds = ("time", *kinds)
    return kinds


@lru_cache(maxsize=16384)
def holds(kind: Kind, text: str) -> bool:
    """Whether `text` holds a value of `kind`: the same passages come back query after query."""
    return _HOLDS[kind](text)


def asked_days(question: str, kinds: tuple[Kind, ...]) -> frozenset[int]:
    """The weekdays (0 = Monday) a question for a time names: "Cumartesi açık mısınız,
    kaça kadar?" {5}; none for a question naming no day, or every day."""
    if "time" not in kinds:
        return frozenset()
    days = spoken_days(question)
    return frozenset(days) if len(days) < 7 else frozenset()


@lru_cache(maxsize=16384)
def _days_named(text: str) -> frozenset[int]:
    return frozenset(days_of(text))


def asked_first(
    hits: list[Hit],
    kinds: tuple[Kind, ...],
    days: frozenset[int] = frozenset(),
    weekly: bool = False,
    standing: bool = False,
) -> list[Hit]:
    """`hits`, the first of them not holding every kind asked for preceded by the best
    placed one that does, if it scored at least ASKED_FIRST_MIN_SHARE of the first. Only
    the first place changes: an answer that is said in words ("the kitchen closes half
    an hour before we do") keeps its rank below it. (Scores are not in order after
    one_slot_per_page, so every hit is looked at.) A question for a time that names
    `days` (asked_days) wants a passage that also names one of them: a Turkish
    dentist's "Cumartesi … kaça kadar?" got the Korean page's weekday hours first, and
    the line "Cumartesi 09:00 – 14:00" third. One that names every day asked about goes
    before one naming some ("what time do you close on weekdays?" got a rental page's
    "from Saturday at 10:00 to Monday" before the contact page's "Monday – Friday").
    Failing one, a passage with any time goes first, as for a question naming no day.

    A question for a weekday's hours that names no date (`weekly`, asks_weekly) asks for
    the business's week, which a news post does not state (`news_page`): "Hoe laat gaan
    jullie donderdag dicht?" got first the post on last Christmas's closing, "from
    Thursday 24 December to Friday 1 January we are closed", and the summer-hours post of
    two years ago for "szombaton meddig vannak nyitva?". Such a question gets first a
    passage where the day leads an hours line or a table's row ("| Dissabte | 10:00 –
    14:00 |"), before prose that names it ("from Saturday at 10:00 to Monday"), and a
    page's such line before the site-wide template's. When the passage that would go
    first is a news post's, the best placed passage of a standing page that names the day
    and matched as well as the floor goes first instead: a page's before the site-wide
    template's, which is the last part of a site brought up to date (the Seoul clinic's
    footer still says "목 야간 ~21:00" beside the notice and the hours page's 20:30).

    A question for the business's standing facts (`standing`, asks_standing: no date, no
    holiday) does not want a news post's number, e-mail, address or hours either, when a
    standing page holding one matched nearly as well (NEWS_YIELDS_SHARE): a tyre shop's
    "where do I call to order tyres?" got first the post naming its importer's number.
    A price stays: posts announce the offers callers ask about ("how much is that
    October workshop?")."""
    if not kinds or not hits:
        return hits
    floor = ASKED_FIRST_MIN_SHARE * hits[0].score
    named, in_lines = [], []
    if days:
        # for the week's hours, an hours line or a table's row naming every day asked
        # about ("weekdays", "Saturday and Sunday"), then any of them; then a passage
        # naming them anywhere, every one, then any
        enoughs = (days.__le__, days.__and__) if len(days) > 1 else (days.__le__,)

        def naming(days_in: Callable[[str], frozenset[int]], enough: Callable) -> Callable[[Hit], bool]:
            return lambda h: _holds_all(h, kinds) and bool(enough(days_in(_text(h))))

        in_lines = [naming(hours_line_days, enough) for enough in enoughs] if weekly else []
        named = [*in_lines, *(naming(_days_named, enough) for enough in enoughs)]
    # a price list's row before a price said in passing, when it matched nearly as well
    listed = (
        [lambda h: _holds_all(h, kinds) and h.score >= PRICE_LIST_MIN_SHARE * hits[0].score and _price_listed(_text(h))]
        if kinds == ("price",)
        else []
    )
    for good in [*named, *listed, lambda h: _holds_all(h, kinds)]:
        # lazily: the rest are looked at only when the first is a news post's
        holders = (i for i, hit in enumerate(hits) if (i == 0 or hit.score >= floor) and good(hit))
        first = next(holders, None)
        if first is None:
            continue
        template = _url(hits[first]).endswith(SITE_DOCUMENT_FRAGMENT)
        if standing and not weekly and "price" not in kinds and news_page(_url(hits[first])):
            least = NEWS_YIELDS_SHARE * hits[0].score
            first = next((i for i in holders if hits[i].score >= least and not news_page(_url(hits[i]))), first)
        elif weekly and good in named and (news_page(_url(hits[first])) or (template and good in in_lines)):
            steady = [i for i in holders if not news_page(_url(hits[i]))]
            pages = [i for i in steady if not _url(hits[i]).endswith(SITE_DOCUMENT_FRAGMENT)]
            if not steady and not template and good is not named[-1]:
                continue  # a news post's line: a standing page may name the day further down
            first = next(iter(pages or steady), first)
        return hits if first == 0 else [hits[first], *hits[:first], *hits[first + 1 :]]
    return hits


def _url(hit: Hit) -> str:
    return hit.payload.get("url", "")


_LISTED = re.compile(r"^\s*(?:\||[-*+]\s|\d+[.)]\s)")


@lru_cache(maxsize=16384)
def _price_listed(text: str) -> bool:
    """A price in a price list: a table's row or a list's item."""
    return any(
        _LISTED.match(line) and any(_DIGIT.search(m.group(0)) for m in _PRICE.finditer(line))
        for line in text.splitlines()[1:]
    )


def _text(hit: Hit) -> str:
    return hit.payload.get("text", "")


_DIGIT = re.compile(r"\d")
# A day named with a holiday ("Good Friday", "Easter Monday", "Viernes Santo", "lørdagen
# før jul", "جمعه‌ی نوروز") is that day, not every week's, and "since when are you open on
# Mondays?" asks for the change: what a news post may answer. In
# the callers' languages; a date in figures is told by its digits, a month's name is not
# read ("Saturday in August" asks for the week). *ours*
_OCCASION = re.compile(
    r"\b(?:easter\w*|good friday|black friday|cyber monday|holy (?:week|thursday|saturday)|maundy thursday|"
    r"whit\w*|christmas|xmas|new year\w*|holiday\w*|thanksgiving|semana santa|\w+ santo|sexta-feira santa|"
    r"venerdì santo|vendredi saint|pascua|páscoa|pâques|pasqua\w*|pasquetta|navidad|natal|noël|natale|nochebuena|"
    r"festivo\w*|feriado\w*|férié\w*|ostern|oster\w*|pfingst\w*|weihnacht\w*|feiertag\w*|silvester|"
    r"kerst\w*|pasen|paas\w*|pinkster\w*|feestdag\w*|jul|jule\w*|påsk\w*|påske\w*|midsommar\w*|helligdag\w*|"
    r"bayram\w*|ramazan|ramadan|wielkanoc\w*|świąt\w*|święt\w*|velikonoc\w*|vánoc\w*|sviatk\w*|karácsony\w*|"
    r"húsvét\w*|ünnep\w*|joulu\w*|pääsiäi\w*|juhannu\w*|tết|lebaran|idul\w*|nyepi|paşte|paște|crăciun\w*|"
    r"рождеств\w*|пасх\w*|праздни\w*|великдень|різдв\w*|свята|святков\w*|коледа|великден|božić\w*|uskrs\w*|"
    r"blagdan\w*|πάσχα|χριστούγενν\w*|αργί\w*|nadal|setmana santa|sant joan|festiu\w*|cap d'any|božič\w*|"
    r"velik\w* noč\w*|velikonoč\w*|praznik\w*|praznič\w*|novo leto|novoletn\w*|"
    r"jõulu\w*|jõule|jaanipäe\w*|jaanilaupäe\w*|võidupüha\w*|lihavõtte\w*|pühad\w*|pühade\w*|riigipüha\w*|uusaasta\w*|vana-aasta\w*|"
    r"kalėd\w*|velyk\w*|jonin\w*|šventin\w*|švenčių|švenčių dien\w*|naujųjų metų|ziemassvētk\w*|lieldien\w*|jāņ\w*|svētku dien\w*|"
    # "since when?" asks when the hours changed: a news post's date
    r"since when|depuis quand|seit wann|desde cuándo|desde quando|da quando|sinds wanneer|od kdy|od kiedy|od kedy|mis ajast|nuo kada|kopš kura laika|"
    r"siden hvornår|siden når|sedan när|des de quan|mióta|mistä lähtien|с каких пор|відколи|от кога)\b"
    r"|رمضان|عيد|عید|نوروز|تعطیلات|חג|פסח|ראש השנה|סוכות|สงกรานต์|ปีใหม่|春节|春節|過年|正月|お盆|年末|祝日|설날|추석|명절|공휴일",
    re.IGNORECASE,
)


def asks_weekly(question: str, days: frozenset[int]) -> bool:
    """Whether a question for a time (`days`: asked_days) asks for a weekday of the
    regular week: it names a day and no date ("What time do you close on Thursday?",
    not "Are you open on Thursday the 24th?", "… Thursday 24.12." or "… on Good Friday?")."""
    return bool(days) and asks_standing(question)


def asks_standing(question: str) -> bool:
    """Whether a question asks for what holds now, not on a date or a holiday ("How much
    is a month?", not "… over Christmas?" or "… on the 24th?")."""
    return not _DIGIT.search(question) and not _OCCASION.search(question)


def holds_every(text: str, kinds: tuple[Kind, ...]) -> bool:
    """Whether `text` holds a value of each of `kinds`."""
    return all(holds(kind, text) for kind in kinds)


def _holds_all(hit: Hit, kinds: tuple[Kind, ...]) -> bool:
    return holds_every(_text(hit), kinds)
