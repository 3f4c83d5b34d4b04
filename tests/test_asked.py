"""What kind of value a question asks for, and which passages hold one (retrieval.asked)."""

import pytest

from ingest.kb.store import Hit
from retrieval.asked import (
    ASKED_FIRST_MIN_SHARE,
    PRICE_LIST_MIN_SHARE,
    asked_days,
    asked_first,
    asked_kinds,
    asks_standing,
    asks_weekly,
    holds,
)


@pytest.mark.parametrize(
    "question, kinds",
    [
        ("What time do you close on Saturday?", ("time",)),
        ("Hoe laat gaan jullie donderdag dicht?", ("time",)),
        ("Μέχρι τι ώρα πρέπει να αφήσουμε το δωμάτιο;", ("time",)),
        ("점심시간이 몇 시부터 몇 시까지예요?", ("time",)),
        ("Do kolika máte ve čtvrtek otevřeno?", ("time",)),
        ("Πόσο κοστίζει ένα δίκλινο με θέα θάλασσα;", ("price",)),
        ("Kolik by stálo pronajmout si sál na hodinu?", ("price",)),
        ("和菓子作りの体験っておひとりいくらですか？", ("price",)),
        ("Ile kosztuje wymiana oleju?", ("price",)),
        ("Hur mycket kostar det att klippa sig hos er?", ("price",)),
        ("Vilket nummer ringer man för att nå er?", ("phone",)),
        ("Wat is jullie telefoonnummer?", ("phone",)),
        ("Kan ik jullie ook appen via WhatsApp?", ("phone",)),
        ("What number can I text you at?", ("phone",)),
        ("What is your email address?", ("email",)),
        ("¿Cuál es el correo del equipo de Backoffice?", ("email",)),
        ("Waar zitten jullie precies, wat is het adres?", ("address",)),
        ("치과가 정확히 어디에 있어요?", ("address",)),
        ("What's your phone number and your e-mail?", ("phone", "email")),
        ("Do you have a phone number?", ("phone",)),
        ("Haben Sie eine Telefonnummer?", ("phone",)),
        ("Is there an email I can write to?", ("email",)),
        ("Quelle est votre adresse e-mail ?", ("email",)),
        ("¿Cuál es la dirección de correo?", ("email",)),
        ("Wie ist eure E-Mail-Adresse?", ("email",)),
        ("Până la ce oră sunteți deschiși vinerea?", ("time",)),
        ("Care e programul de sâmbătă?", ("time",)),
        ("Cât costă o noapte în camera dublă?", ("price",)),
        ("Care e numărul de telefon al recepției?", ("phone",)),
        ("Unde vă aflați exact?", ("address",)),
        ("Hány órától vagytok nyitva szombaton?", ("time",)),
        ("Mennyibe kerül egy hajvágás?", ("price",)),
        ("Hol található az üzlet?", ("address",)),
        ("Hva er e-postadressen deres?", ("email",)),
        ("Vad är er e-postadress?", ("email",)),
        ("når stenger dere på lørdag?", ("time",)),
        ("Hvornår lukker I om fredagen?", ("time",)),
        ("Koľko u vás teraz stojí bežné vyšetrenie?", ("price",)),
        ("Koľko by ma stál röntgen?", ("price",)),
        ("Do koľkej máte otvorené v piatok?", ("time",)),
        ("máte otvorené aj v sobotu dopoludnia?", ("time",)),
        ("kde presne sa nachádzate?", ("address",)),
        ("Здравейте, колко струва една двойна стая на нощ?", ("price",)),
        ("в събота до колко часа е отворена механата?", ("time",)),
        ("Работите ли в понеделник?", ("time",)),
        ("Кажете ми имейла ви, моля", ("email",)),
        ("Вие колко сте далече от крепостта?", ()),  # how far, not how much
        ("ببخشید جرم‌گیری پیش شما چقدر درمیاد؟", ("price",)),
        ("ویزیتتون چنده؟", ("price",)),
        ("تا مطب چقدر راهه؟", ()),  # how far
        ("پنجشنبه‌ها تا ساعت چند باز هستید؟", ("time",)),
        ("سه‌شنبه عصر باز هستین؟", ("time",)),
        ("میشه شماره واتساپتونو بدید؟", ("phone",)),
        ("ایمیل کلینیک چیه؟", ("email",)),
        ("آدرس دقیق رو می‌گید؟", ("address",)),
        ("آدرس ایمیل شما چیه؟", ("email",)),
        ("ساعت کاری پنجشنبه؟", ("time",)),
        ("ویزیت چقدره؟", ("price",)),
        ("قيمت ويزيت؟", ("price",)),  # an Arabic keyboard's letters
        ("Koľko to bude trvať?", ()),  # how long, not how much
        ("Pot să rezerv prin e-mail?", ()),
        ("Câte locuri are microbuzul?", ()),
        # Not asking for a value, or naming only the way to ask.
        ("Can I bring my dog?", ()),
        ("If I send you an email, how long till I hear back?", ()),
        ("Kann ich per E-Mail buchen?", ()),
        ("Where can I park the car?", ()),
        ("What number of people fit in the room?", ()),
        ("How many hours does a groom take?", ()),
        ("Tedavi ne kadar sürer?", ()),
        ("Can I book by phone?", ()),
    ],
)
def test_the_kind_of_value_asked_for_is_told_in_the_callers_languages(question, kinds):
    assert asked_kinds(question) == kinds


@pytest.mark.parametrize(
    "kind, text, held",
    [
        ("time", "| Saturday | 9:30 – 14:00 |", True),
        ("time", "Η κουζίνα κλείνει στις 22:30.", True),
        ("time", "La cucina chiude alle 22.", True),
        ("price", "Sandero, 7 zile: 210 lei", True),
        ("time", "Der Laden öffnet um 9 Uhr.", True),
        ("time", "Kliniğimiz 13.00'e kadar açık olacaktır.", True),
        ("time", "토요일 오전 9:30 ~ 오후 2:00", True),
        ("time", "La cucina chiude mezz'ora prima.", False),
        ("time", "A loaf costs 12.50 €.", False),
        ("time", "| Bath | 25.00 – 35.00 € |", False),
        ("time", "Ab 18 Jahren.", False),
        ("time", "치료는 2시간 걸립니다.", False),
        ("time", "Geöffnet 9.00 – 18.00", True),
        ("price", "Gleitsichtgläser ab CHF 590.–", True),
        ("price", "1회 본인부담금은 보통 1만 원대 중반에서 3만 원 내외입니다.", True),
        ("price", "| Δίκλινο (θέα θάλασσα) | 75 € | 130 € |", True),
        ("price", "The consultation is free.", True),
        ("price", "We take a deposit equal to the first night's stay.", False),
        ("price", "Feel free to ask for gluten-free bread.", False),
        ("price", "| Двойна стая | 90 лв. |", True),
        ("price", "| جرم‌گیری | ۱٬۲۰۰٬۰۰۰ تومان |", True),
        ("price", "کیک یزدی کیلویی ۲۹۵ هزار تومان", True),
        ("time", "ساعت ۹ تا ۱۴", True),
        ("time", "برای ۲ تا ۳ نفر", False),
        ("time", "شنبه تا چهارشنبه ۹:۰۰ تا ۱۴:۰۰", True),
        ("phone", "Tel. +49 761 234 56 78", True),
        ("phone", "Open since 2019-2024", False),
        ("phone", "Open 10.00 - 18.00", False),
        ("phone", "Closed 24.12.2024 - 02.01.2025", False),
        ("email", "Write to info@akrogiali-naxos.gr", True),
        ("address", "De Fietsmakerij Utrecht\nTwijnstraat 42\n3511 ZL Utrecht", True),
        ("address", "주소: Moda Caddesi No. 148, 2층, 카드쾨이", True),
        ("address", "**Address:** 2210 NW 7th St, Miami, FL 33125", True),
        ("address", "Address / Dirección: 2418 SE Division St, Portland, OR, 97202", True),  # the card's
        ("address", "Information you give us: your name, phone number and address", False),
        ("address", "We are in the Twijnstraat, near the Tolsteeg bridge.", False),
        ("address", "Find us: on Instagram", False),
    ],
)
def test_a_passage_holds_a_value_by_its_shape(kind, text, held):
    assert holds(kind, text) is held


def _hit(pid: str, score: float, text: str) -> Hit:
    return Hit(id=pid, score=score, payload={"text": text, "url": f"/{pid}/"})


def test_the_best_passage_holding_what_is_asked_for_goes_first():
    hits = [
        _hit("talk", 0.026, "Saturdays are busy, please book ahead."),
        _hit("note", 0.024, "Closed on public holidays."),
        _hit("table", 0.022, "| Saturday | 9:30 – 14:00 |"),
        _hit("other", 0.021, "| Sunday | 10:00 – 12:00 |"),
    ]
    # Only the first place changes: the passages it passed keep their order.
    assert [h.id for h in asked_first(hits, ("time",))] == ["table", "talk", "note", "other"]
    # Nothing asked for, or the best passage holds it: the order stays.
    assert asked_first(hits, ()) == hits
    assert asked_first(hits[2:], ("time",)) == hits[2:]
    # A passage that matched far worse than the best does not take its place.
    far = [hits[0], _hit("table", 0.026 * ASKED_FIRST_MIN_SHARE * 0.9, "| Saturday | 9:30 – 14:00 |")]
    assert asked_first(far, ("time",)) == far


def test_every_hit_is_looked_at_as_scores_are_not_in_order():
    # one_slot_per_page puts a page's version in the question's language first, so a
    # better-scored hit can follow a worse one.
    hits = [
        _hit("talk", 0.026, "Saturdays are busy, please book ahead."),
        _hit("translation", 0.010, "Samstags ist viel los."),
        _hit("table", 0.022, "| Saturday | 9:30 – 14:00 |"),
    ]
    assert [h.id for h in asked_first(hits, ("time",))] == ["table", "talk", "translation"]


def test_a_passage_must_hold_every_kind_asked_for():
    hits = [
        _hit("phone", 0.03, "Tel. +44 1736 555 0199"),
        _hit("both", 0.028, "Tel. +44 1736 555 0199 · bookings@harbourlight.example"),
    ]
    assert [h.id for h in asked_first(hits, ("phone", "email"))] == ["both", "phone"]


def test_a_question_for_the_time_on_a_day_gets_a_passage_naming_that_day_first():
    question = "Cumartesi açık mısınız, kaça kadar?"
    kinds = asked_kinds(question)
    days = asked_days(question, kinds)
    assert kinds == ("time",) and days == {5}
    hits = [
        _hit("weekdays", 0.026, "월요일 – 금요일 09:00 – 19:00"),
        _hit("faq", 0.025, "Randevu için arayın."),
        _hit("saturday", 0.024, "Cumartesi 09:00 – 14:00 · Pazar kapalı"),
    ]
    assert [h.id for h in asked_first(hits, kinds, days)] == ["saturday", "weekdays", "faq"]
    # Without the day, a passage holding any time is enough, and the order stays.
    assert asked_first(hits, kinds) == hits
    # No passage names the day: the one holding a time goes first, as before.
    no_day = [hits[1], hits[0]]
    assert [h.id for h in asked_first(no_day, kinds, days)] == ["weekdays", "faq"]
    # A question naming every day ("daily"), or one asking no time, names no days.
    assert asked_days("What are your daily opening hours?", asked_kinds("What are your daily opening hours?")) == set()
    assert asked_days("Do you have parking on Saturday?", asked_kinds("Do you have parking on Saturday?")) == set()


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("Moi, mihin aikaan te ootte auki lauantaina?", ("time",)),
        ("Paljonko maksaa pyyhkeen vuokraus?", ("price",)),
        ("Mikä teidän puhelinnumero on?", ("phone",)),
        ("Mihin sähköpostiin voin laittaa viestiä?", ("email",)),
        ("Mikä teidän katuosoite on?", ("address",)),
        ("Voiko teillä maksaa käteisellä?", ()),  # how to pay, not what it costs
        ("Qual è il numero massimo di persone?", ()),  # the Italian "numero" of people is no phone
    ],
)
def test_finnish_questions_ask_for_kinds(question, kinds):
    assert asked_kinds(question) == kinds


def test_a_finnish_time_says_klo_and_finnish_alle_is_under():
    assert holds("time", "Lounas ti–pe klo 11–14.") and holds("time", "kl. 10–18")
    assert not holds("time", "Alle 7-vuotiaat saunovat ilmaiseksi.")  # "under 7 years old"
    assert holds("time", "Chiudiamo alle 23.")  # the Italian "at 23" still is


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("Tiệm mình mấy giờ đóng cửa vậy em?", ("time",)),
        ("Chị có cái quần tây muốn lên lai lại thì tiệm lấy bao nhiêu?", ("price",)),
        ("Em ở Hà Nội, gửi ra ngoài này phí ship nhiêu?", ("price",)),
        ("Zalo của tiệm số mấy vậy em?", ("phone",)),
        ("Tiệm mình nằm ở đường nào vậy em?", ("address",)),
        ("Anh may bộ vest thì mấy ngày lấy được em?", ()),  # how many days, not a time of day
        ("Tiệm có bao nhiêu thợ may?", ()),  # how many tailors, not a price
    ],
)
def test_vietnamese_questions_ask_for_kinds(question, kinds):
    assert asked_kinds(question) == kinds


def test_prices_in_dong_are_prices():
    assert holds("price", "Lên lai quần: 45.000đ") and holds("price", "Áo dài: 1.200.000 VNĐ")
    assert holds("price", "từ 950.000₫") and not holds("price", "lấy trong 48 giờ")


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("Halo, mau tanya, nomor WA buat booking motor berapa ya?", ("phone",)),  # "berapa": which number
        ("Hari Minggu buka jam berapa sampai jam berapa?", ("time",)),
        ("Sewa motor per hari berapa ya?", ("price",)),
        ("Ongkos antarnya ke Tegallalang berapa?", ("price",)),
        ("Kantornya di mana ya?", ("address",)),
        ("Berapa lama tur ke Kintamani?", ()),  # how long, not a price
    ],
)
def test_indonesian_questions_ask_for_kinds(question, kinds):
    assert asked_kinds(question) == kinds


def test_rupiah_and_pukul_are_a_price_and_a_time():
    assert holds("price", "Honda Scoopy: Rp 75.000 / hari") and holds("price", "IDR 950,000 per week")
    assert holds("time", "Kantor buka pukul 08.00") and not holds("time", "jam 2 siang")


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("Алло, ви працюєте в суботу? До котрої години?", ("time",)),
        ("Скільки у вас коштує чистка зубів?", ("price",)),
        ("Можна вам у вайбер написати? На який номер?", ("phone",)),
        ("Продиктуйте, будь ласка, вашу електронну пошту", ("email",)),
        ("Де ви знаходитесь?", ("address",)),
        ("Сколько стоит чистка зубов?", ("price",)),
        ("Скільки триває лікування?", ()),  # how long, not what it costs
    ],
)
def test_ukrainian_and_russian_questions_ask_for_kinds(question, kinds):
    assert asked_kinds(question) == kinds


def test_hryvnias_are_a_price():
    assert holds("price", "Чистка зубів — від 1 200 грн") and holds("price", "₴500") and not holds("price", "2 роки")


def test_a_hotel_room_is_no_number_to_call():
    assert asked_kinds("Які номери у вас є на вихідні?") == ()  # "номер" is a hotel room too
    assert asked_kinds("Дайте, будь ласка, номер телефону реєстратури") == ("phone",)


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("Are you open on Sunday?", ("time",)),
        ("Habt ihr am Sonntag offen?", ("time",)),
        ("¿Abren los domingos?", ("time",)),
        ("Доброго дня, а ви в неділю працюєте?", ("time",)),
        ("Are you open?", ()),  # no day: the card's whole week is no better than the rest
        ("Is the pool open every day?", ()),
    ],
)
def test_whether_the_business_opens_on_a_day_asks_for_that_days_hours(question, kinds):
    assert asked_kinds(question) == kinds


def test_a_passage_naming_the_day_asked_about_comes_first_for_open_on_that_day():
    kinds = asked_kinds("Are you open on Saturday?")
    assert asked_days("Are you open on Saturday?", kinds) == {5}


@pytest.mark.parametrize(
    "question",
    ["Do you have an open bar?", "Do you open new patient accounts?", "Kann ich am Montag auf Rechnung zahlen?"],
)
def test_open_without_a_day_named_in_full_asks_for_no_time(question):
    assert asked_kinds(question) == ()  # "Do" is a German Thursday, "auf" a German word


def test_jam_and_a_number_is_no_time():
    assert not holds("time", "Strawberry jam 4.50") and holds("time", "Kantor buka pukul 08.00")


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("ฮัลโหลค่ะ ขอเบอร์โทรร้านหน่อยค่ะ", ("phone",)),
        ("วันจันทร์ร้านเปิดถึงกี่ทุ่มคะ", ("time",)),
        ("นวดไทยชั่วโมงนึงเท่าไหร่คะ", ("price",)),
        ("ร้านอยู่ตรงไหนคะ", ("address",)),
        ("بدي أسأل، انتو بتفتحوا يوم الجمعة ولا لأ", ("time",)),  # open on a day
        ("قديش بتاخدوا على تصليح البنشر؟", ("price",)),
        ("ساعة الشغل عندكم بكم؟", ("price",)),  # "for how much?" at the end
        ("نرحب بكم، هل عندكم موقف سيارات؟", ()),  # "بكم" is also "with you"
        ("شو الإيميل تبعكم؟", ("email",)),
        ("وين مكانكم بالزبط؟", ("address",)),
        ("你們禮拜天有開嗎", ("time",)),
        ("掛號費要多少錢", ("price",)),
        ("你們有email嗎？", ("email",)),
        ("請問你們診所在哪裡？幾號幾樓啊", ("address",)),  # a street number, not a phone's
        ("Kolko košta onaj izlet na Plavu lagunu?", ("price",)),
        ("U koliko sati radite subotom?", ("time",)),
        ("Jel imate broj od skipera?", ("phone",)),
        ("Nas je šestero, koji apartman?", ()),
        ("Koliki je maksimalni broj gostiju?", ()),  # how many guests, no phone's number
        ("أين مكتبكم؟", ("address",)),  # "بكم" inside "مكتبكم" asks no price
        ("هل أنتم في الطابق الأرضي؟", ()),  # the ground floor, not the landline
        ("عندكم خدمة التموين؟", ()),  # "وين" inside "التموين" (catering)
        ("Habt ihr heißen Kakao?", ()),  # cocoa, not KakaoTalk
        ("Do you take WeChat Pay?", ()),
        ("Quanto costa il prezzo di ste scarpe?", ("price",)),  # Italian "di ste", no Croatian "where are you"
        ("מה המספר טלפון של החנות שלכם?", ("phone",)),  # Hebrew, with its prefixes written on
        ("יש לכם וואטסאפ? אני רוצה לשלוח תמונה", ("phone",)),
        ("איפה אתם נמצאים בדיוק? באיזה רחוב", ("address",)),
        ("כמה עולה טיפול בסיסי לאופניים?", ("price",)),
        ("עד מתי אתם פתוחים ביום שישי?", ("time",)),
        ("אפשר לקפוץ אליכם בשבת בבוקר", ("time",)),  # whether it opens on Saturday
        ("מה המייל שלכם", ("email",)),
        ("כמה זמן לוקח התיקון?", ()),  # how long, not how much
        ("מה שעות פעילות של הסניף?", ("time",)),
        ("עד איזה שעה אתם פתוחים?", ("time",)),
        ("מה המספר שלכם?", ("phone",)),
        ("יש לכם מזגן נייד?", ()),  # a mobile air conditioner
        ("מה מספר הנייד של החנות?", ("phone",)),  # the mobile's number
        ("מה כתובת המייל?", ("email",)),  # the e-mail address, no street
    ],
)
def test_thai_arabic_chinese_croatian_and_hebrew_questions_ask_for_kinds(question, kinds):
    assert asked_kinds(question) == kinds


def test_baht_dinars_yuan_and_shekels_are_a_price():
    assert holds("price", "นวดแผนไทย 60 นาที 350 บาท") and holds("price", "فحص شامل 35 دينار")
    assert holds("price", "徒手治療 1,500元起") and holds("price", "NT$800") and not holds("price", "2樓")
    assert holds("price", "כוונון בסיסי 180 ₪") and holds("price", "150 ש״ח") and not holds("price", "קומה 2")
    assert holds("price", "NIS 50") and holds("price", "50 NIS") and holds("price", "50 שח")
    assert not holds("price", "Gel nails 3 weeks") and not holds(
        "price", "Pupils 12 and older"
    )  # no "ILS" inside words


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("欸你好，我想問一下你們有沒有LINE啊？那個帳號是多少", ("chat",)),
        ("มีไลน์ร้านไหมครับ แอดไลน์ว่าอะไรนะ", ("chat",)),
        ("Can I message you on LINE?", ("chat",)),
        ("카톡 아이디 알려주세요", ("chat",)),
        ("Is there a line at the door?", ()),  # a queue
        ("Do I have to wait in line?", ()),
        ("Do you have Line? I'd rather text", ("chat",)),
        ("Can I send you a photo on Viber? Which number?", ("phone",)),  # Viber's ID is the number
    ],
)
def test_a_messenger_whose_id_is_no_number_is_asked_for_as_a_chat(question, kinds):
    assert asked_kinds(question) == kinds


def test_a_chat_link_or_id_is_held_unless_someone_elses():
    assert holds("chat", "Chat: https://line.me/R/ti/p/@kangfu-tp (LINE)") and holds("chat", "LINE: @kangfu-tp")
    assert holds("chat", "KakaoTalk ID: gulumse_dental") and not holds("chat", "Line up at 9, doors at 10")
    assert not holds("chat", "Webdesign: Studio X, Telegram: @studiox")


def _at(url: str, pid: str, score: float, text: str) -> Hit:
    return Hit(id=pid, score=score, payload={"text": text, "url": url})


def test_a_weekday_s_hours_come_from_a_standing_page_not_a_news_post():
    # The Utrecht bike shop: "what time do you close on Thursday?" matched best the post
    # on last Christmas's closing, which names a Thursday and a time.
    question = "Hoe laat gaan jullie donderdag dicht?"
    days = asked_days(question, asked_kinds(question))
    assert days == {3} and asks_weekly(question, days)
    post = _at(
        "https://f.example/nieuws/kerstsluiting-2026/",
        "post",
        0.030,
        "Van donderdag 24 december tot en met vrijdag 1 januari zijn we gesloten. Vanaf zaterdag 9.30 – 17.00 uur.",
    )
    template = _at(
        "https://f.example/#site-wide", "template", 0.029, "Openingstijden: di–vr 9.00 – 18.00, do tot 21.00"
    )
    hours = _at("https://f.example/openingstijden/", "hours", 0.028, "| Donderdag | 9.00 – 20.00 |")
    hits = [post, template, hours]
    assert [h.id for h in asked_first(hits, ("time",), days, weekly=True)] == ["hours", "post", "template"]
    # A question naming a date asks for that date, which a post may well answer.
    dated = "Hoe laat gaan jullie donderdag 24 december dicht?"
    assert not asks_weekly(dated, asked_days(dated, asked_kinds(dated)))
    assert asked_first(hits, ("time",), days, weekly=False) == hits
    # The site-wide template is the last resort: before a post, after a page.
    assert asked_first([post, template], ("time",), days, weekly=True) == [template, post]
    # and a template that matched first keeps its place (hours that only a footer gives).
    workshop = _at("https://f.example/workshops/", "workshop", 0.028, "Kinderworkshop elke donderdag 15.00 – 17.00")
    assert asked_first([template, workshop], ("time",), days, weekly=True) == [template, workshop]
    # With no standing passage that names the day, the post keeps its place.
    assert (
        asked_first([post, _at("https://f.example/", "home", 0.029, "Welkom!")], ("time",), days, weekly=True)[0]
        == post
    )
    # A holiday's day is no week's: "Good Friday" may be the post's.
    assert not asks_weekly("Are you open on Good Friday?", frozenset({4}))
    assert not asks_weekly("¿Abren el Viernes Santo?", frozenset({4}))
    # Nor does a standing page that matched far worse take it.
    far = _at(
        "https://f.example/openingstijden/",
        "hours",
        0.030 * ASKED_FIRST_MIN_SHARE * 0.9,
        "| Donderdag | 9.00 – 20.00 |",
    )
    assert asked_first([post, far], ("time",), days, weekly=True) == [post, far]


@pytest.mark.parametrize(
    "question, weekly",
    [
        ("What time do you close on Thursday?", True),
        ("szombaton meddig vannak nyitva?", True),
        ("Are you open on Thursday the 24th?", False),
        ("Do you close at 6 on Saturdays?", False),
        ("What time do you close?", False),  # no day: no week asked for
        ("Do you open on Friday?", True),  # "Do" is no German Thursday here
        ("Hvornår lukker I lørdagen før jul?", False),  # the Saturday before Christmas
        ("Depuis quand vous ouvrez le lundi ?", False),  # since the post that says so
        ("¿Qué horario tenéis el ٢٤ de diciembre, el jueves?", False),  # any script's digits
    ],
)
def test_a_question_asks_for_the_week_when_it_names_a_day_and_no_date(question, weekly):
    assert asks_weekly(question, asked_days(question, asked_kinds(question))) is weekly


def test_a_questions_first_word_is_no_short_day_name():
    # German "Do" (Thursday) and the Slavic "Do" (until): a Friday question is Friday's
    for question in ("Do koľkej ste otvorení v piatok?", "Do you open on Friday?", "Do kolika máte v pátek?"):
        assert asked_days(question, asked_kinds(question)) == {4}, question


def test_a_price_is_read_from_the_start_of_its_number_in_long_runs_of_digits():
    # A run of digits and separators is tried once, from its start: a passage of a long
    # table of figures without a currency holds no price, and the amount after it still is.
    figures = "1.2," * 500
    assert not holds("price", "1" * 3000) and not holds("price", figures)
    assert holds("price", figures + " 45 €") and holds("price", "1" * 3000 + " x 3만 원")
    assert holds("price", "ab.50 €") and holds("price", "Kaffee ,90 EUR") and holds("price", "1'200 CHF")
    assert holds("price", "ミニ 1,500元") and not holds("price", "Tel. 0123 456 789")


@pytest.mark.parametrize(
    "question, kinds, days, weekly",
    [
        ("A quina hora tanqueu el dissabte?", ("time",), {5}, True),
        ("Obriu els diumenges?", ("time",), {6}, True),
        ("Quant costa llogar una bici elèctrica tot el dia?", ("price",), set(), False),
        ("Quin és el vostre telèfon?", ("phone",), set(), False),
        ("Quin és el correu electrònic?", ("email",), set(), False),
        ("On sou exactament?", ("address",), set(), False),
        ("Obriu el dilluns de Sant Joan?", ("time",), {0}, False),  # a holiday's Monday
        ("Ob kateri uri ste odprti v petek?", ("time",), {4}, True),
        ("Ali ste v soboto odprti?", ("time",), {5}, True),
        ("Koliko stane beljenje zob pri vas?", ("price",), set(), False),
        ("Kakšna je vaša telefonska številka?", ("phone",), set(), False),
        ("Kakšen je vaš e-poštni naslov?", ("email",), set(), False),  # the e-mail address, no street
        ("Kje se nahajate?", ("address",), set(), False),
        ("Ste odprti v petek pred božičem?", ("time",), {4}, False),
        ("Kdaj odpirate v soboto?", ("time",), {5}, True),
        ("Ste odprti ob koncu tedna?", ("time",), {5, 6}, True),
        ("Obriu entre setmana a la tarda?", ("time",), {0, 1, 2, 3, 4}, True),
        ("Ali delate na velikonočni ponedeljek?", ("time",), {0}, False),  # Easter Monday
        ("Kakšen je vaš poštni naslov?", ("address",), set(), False),  # the postal address
        ("Kakšen je vaš elektronski naslov?", ("email",), set(), False),
        ("Quina és la vostra adreça electrònica?", ("email",), set(), False),
        ("Kje najdem številko rezervacije?", (), set(), False),  # a booking's number, no phone
        ("A che ora sono le cene?", ("time",), set(), False),  # Italian dinners are no Slovenian prices
    ],
)
def test_catalan_and_slovenian_questions_ask_for_kinds_and_days(question, kinds, days, weekly):
    asked = asked_kinds(question)
    assert asked == kinds and asked_days(question, asked) == days
    assert asks_weekly(question, asked_days(question, asked)) is weekly


def test_a_passage_naming_every_day_asked_about_goes_before_one_naming_some():
    question = "What time do you close in the evening on weekdays?"
    kinds = asked_kinds(question)
    days = asked_days(question, kinds)
    assert days == {0, 1, 2, 3, 4}
    hits = [
        _hit("rental", 0.0244, "Weekend rental: from Saturday at 10:00 to Monday at 10:00."),
        _hit("faq", 0.0240, "Do I need to book? Not on weekdays."),
        _hit("hours", 0.0226, "| Monday – Friday | 9.30am – 2pm, 4.30pm – 8pm |\n| Saturday | 10am – 2pm |"),
    ]
    assert [h.id for h in asked_first(hits, kinds, days)] == ["hours", "rental", "faq"]
    # None names them all: one naming some of them still goes first.
    assert [h.id for h in asked_first([hits[1], hits[0]], kinds, days)] == ["rental", "faq"]


@pytest.mark.parametrize(
    "question, days",
    [
        ("Are you open at the weekend?", {5, 6}),
        ("¿Abrís el fin de semana?", {5, 6}),
        ("Habt ihr am Wochenende offen?", {5, 6}),
        ("Ali ste odprti med vikendom?", {5, 6}),
        ("주말에도 영업하나요?", {5, 6}),
        ("Quin horari feu entre setmana?", {0, 1, 2, 3, 4}),
        ("¿Qué horario tenéis entre semana?", {0, 1, 2, 3, 4}),
    ],
)
def test_the_weekend_and_the_working_week_are_the_days_asked_about(question, days):
    assert asked_days(question, asked_kinds(question)) == days
    # the weekend asks for hours only with a word for open: a weekend rental's price asks for a price
    assert asked_kinds("Do you do weekend rentals, how much?") == ("price",)


def test_a_weekly_question_gets_an_hours_line_before_prose_naming_the_day():
    # The Gràcia bike shop: "dissabte a la tarda esteu oberts?" got the rental page's
    # "des del dissabte a les 10:00 fins al dilluns" before the contact page's table.
    question = "Bon dia, dissabte a la tarda esteu oberts?"
    kinds = asked_kinds(question)
    days = asked_days(question, kinds)
    assert kinds == ("time",) and days == {5} and asks_weekly(question, days)
    prose = _at(
        "https://b.example/lloguer/",
        "prose",
        0.0244,
        "El lloguer de cap de setmana va des del dissabte a les 10:00 fins al dilluns a les 10:00.",
    )
    template = _at("https://b.example/#site-wide", "template", 0.0230, "Dl–Dv 9:30–14 h · Ds: 10–14 h")
    table = _at(
        "https://b.example/contacte/",
        "table",
        0.0200,
        "| Dilluns – Divendres | 9:30 – 14:00 |\n| Dissabte | 10:00 – 14:00 |",
    )
    hits = [prose, template, table]
    assert [h.id for h in asked_first(hits, kinds, days, weekly=True)] == ["table", "prose", "template"]
    # the footer's line when no page has one, and a dated question's day as before
    assert [h.id for h in asked_first(hits[:2], kinds, days, weekly=True)] == ["template", "prose"]
    assert asked_first(hits, kinds, days, weekly=False) == hits


def test_a_price_list_goes_before_a_price_said_in_passing_when_it_matched_nearly_as_well():
    # The Miami plumber: "Is there an extra charge at night?" got the FAQ's "repairs cost
    # the $89 service call" before the price list's row for nights.
    kinds = asked_kinds("Is there an extra charge at night?")
    assert kinds == ("price",)
    faq = _hit(
        "faq", 0.030, "FAQ\n\n**Do you charge for estimates?** Estimates are free; repairs cost the $89 service call."
    )
    prices = _hit("prices", 0.028, "Prices\n\n| Service call | $89 |\n| Nights and weekends | +$60 |")
    assert [h.id for h in asked_first([faq, prices], kinds)] == ["prices", "faq"]
    # one that matched far less keeps its place, and "free" alone lists no price
    far = _hit("prices", 0.030 * PRICE_LIST_MIN_SHARE * 0.95, prices.payload["text"])
    assert asked_first([faq, far], kinds) == [faq, far]
    wifi = _hit("rooms", 0.029, "Rooms\n\n- Free Wi-Fi\n- Sea view")
    assert asked_first([faq, wifi], kinds) == [faq, wifi]


def test_catalan_and_slovenian_times_are_times():
    assert holds("time", "Dissabte: 10–14 h") and holds("time", "de 10 a 14 h")
    assert holds("time", "od 8. do 16. ure") and holds("time", "ob 8. uri")
    assert not holds("time", "Pon–pet 8–16 ljudi")


def test_a_news_posts_hours_line_gives_way_to_a_standing_page_naming_the_day():
    # A review's case: the post's "Saturday: 10:00–13:00 (July only)" is an hours line, the
    # contact page's "Mon–Sat 9:00–14:00" a line too, further down.
    question = "What time do you close on Saturday?"
    kinds = asked_kinds(question)
    days = asked_days(question, kinds)
    post = _at("https://s.example/news/summer/", "post", 0.030, "Saturday: 10:00–13:00 (July only)")
    page = _at("https://s.example/contact/", "page", 0.025, "We are open Mon–Sat 9:00–14:00, come by.")
    assert [h.id for h in asked_first([post, page], kinds, days, weekly=True)] == ["page", "post"]
    # and an hours line naming some of the days asked about goes before prose naming them all
    weekend = "Are you open at the weekend?"
    kinds, days = asked_kinds(weekend), asked_days(weekend, asked_kinds(weekend))
    prose = _at(
        "https://s.example/rental/", "prose", 0.030, "Weekend rental: from Saturday at 10:00 to Sunday at 18:00."
    )
    table = _at(
        "https://s.example/contact/", "table", 0.026, "| Monday – Friday | 9:00 – 18:00 |\n| Saturday | 9:00 – 13:00 |"
    )
    assert [h.id for h in asked_first([prose, table], kinds, days, weekly=True)] == ["table", "prose"]


@pytest.mark.parametrize(
    "question, kinds, days, weekly",
    [
        ("Tere, mis kell te laupäeval kinni panete?", ("time",), {5}, True),
        ("Kas te olete pühapäeval avatud?", ("time",), {6}, True),
        ("Kui palju maksab rehvivahetus?", ("price",), set(), False),
        ("Mis on teie telefoninumber?", ("phone",), set(), False),
        ("Mis on teie e-posti aadress?", ("email",), set(), False),  # the e-mail address, no street
        ("Kus te asute?", ("address",), set(), False),
        ("Kas te olete jaanipäeval avatud?", (), set(), False),  # a holiday, no weekday: as in English
        ("Kas te olete laupäeval enne jõule avatud?", ("time",), {5}, False),  # a holiday's Saturday
        ("Iki kelių valandų dirbate šeštadienį?", ("time",), {5}, True),
        ("Laba diena, kiek kainuoja mėnesio abonementas?", ("price",), set(), False),
        ("Koks jūsų telefono numeris?", ("phone",), set(), False),
        ("Koks jūsų el. pašto adresas?", ("email",), set(), False),
        ("Kur jūs esate?", ("address",), set(), False),
        ("Ar dirbate penktadienį prieš Kalėdas?", ("time",), {4}, False),
        ("Cikos jūs strādājat sestdienā?", ("time",), {5}, True),
        ("Cik maksā nodarbība?", ("price",), set(), False),
        ("Kāds ir jūsu tālruņa numurs?", ("phone",), set(), False),
        # an e-mail address is no street, in the languages before either
        ("Mogu li dobiti vašu e-mail adresu?", ("email",), set(), False),
        ("Mis on teie meili aadress?", ("email",), set(), False),
        # Spanish "cenas" (dinners), the Finnish region Kainuu ask for no price
        ("¿Hacéis cenas para grupos?", (), set(), False),
        ("Do you go to Kainuu in summer?", (), set(), False),
    ],
)
def test_estonian_lithuanian_and_latvian_questions_ask_for_kinds_and_days(question, kinds, days, weekly):
    asked = asked_kinds(question)
    assert asked == kinds and asked_days(question, asked) == days
    assert asks_weekly(question, asked_days(question, asked)) is weekly


def test_a_news_posts_number_gives_way_to_a_standing_pages_for_a_question_without_a_date():
    # The tyre shop's "where do I call to order new tyres?" got first the post naming its
    # importer's number; the service page says to order on the shop's own.
    question = "Kuhu ma pean helistama, kui tahan uusi rehve tellida?"
    kinds = asked_kinds(question)
    assert kinds == ("phone",) and asks_standing(question)
    post = _at("https://r.example/uudised/2025/11/uued-rehvid/", "post", 0.030, "Importija Nordrehv: +372 640 2210")
    page = _at("https://r.example/teenused/", "page", 0.028, "Uusi rehve saab tellida telefonil +372 655 1240.")
    far = _at("https://r.example/kontakt/", "far", 0.020, "Telefon: +372 655 1240")
    assert [h.id for h in asked_first([post, page], kinds, standing=True)] == ["page", "post"]
    # only one that matched nearly as well: the post keeps its place before one far below
    assert [h.id for h in asked_first([post, far], kinds, standing=True)] == ["post", "far"]
    # a question naming a date or a holiday may want the post
    assert not asks_standing("Can I call you on 24 December?") and not asks_standing("Are you open at Christmas?")
    # a price: posts announce the offers callers ask about ("how much is that October workshop?")
    price = "How much is the monthly pass?"
    post = _at("https://s.example/news/2025-season/", "post", 0.030, "Monthly pass: 72 €")
    page = _at("https://s.example/prices/", "page", 0.029, "Monthly pass: 78 €")
    assert [h.id for h in asked_first([post, page], asked_kinds(price), standing=True)] == ["post", "page"]
