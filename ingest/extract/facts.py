"""The business's contact card: phone numbers, WhatsApp, e-mail, postal address,
opening hours, messenger IDs and booking links, as the site states them.

Read from each page before cleaning (so the header and footer count): `tel:`,
`mailto:`, `wa.me` and booking links; schema.org JSON-LD and microdata
(`LocalBusiness`, `Organization`, `openingHoursSpecification`, `contactPoint`); and
labelled lines of text ("Tel.: 030 1234", "Öffnungszeiten: Mo–Fr 9–18 Uhr").
`contact_card()` merges a site's pages into one card; `card_document()` writes it as
a page of short labelled passages, one per kind, in the site's language and English,
so "what's your number?" finds "Phone: …" whatever the page around it said.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache
from urllib.parse import parse_qs, unquote, urljoin, urlsplit

from ingest.extract.language import path_language
from ingest.models import JP_POSTCODE, Fact

KINDS: tuple[str, ...] = ("phone", "whatsapp", "chat", "email", "address", "hours", "booking")
MAX_PER_KIND = 6
MAX_HOURS = 12  # opening hours often take a line a day, and a site states them in several places
MAX_VALUE_CHARS = 200
MAX_LABEL_CHARS = 40
# A fact found on no contact page and in no structured data is the business's when
# this many pages state it (a header or footer). *ours*
MIN_PAGES_FOR_FACT = 3
# The card is stored under the page it is mostly read from, with this fragment.
CARD_FRAGMENT = "#contact-card"


# Labels per language: the passages carry the site's word and the English one.
LABELS: dict[str, dict[str, str]] = {
    "en": {
        "phone": "Phone",
        "whatsapp": "WhatsApp",
        "chat": "Chat",
        "email": "E-mail",
        "address": "Address",
        "hours": "Opening hours",
        "booking": "Booking",
        "title": "Contact",
    },
    "de": {
        "phone": "Telefon",
        "whatsapp": "WhatsApp",
        "chat": "Chat",
        "email": "E-Mail",
        "address": "Adresse",
        "hours": "Öffnungszeiten",
        "booking": "Buchung",
        "title": "Kontakt",
    },
    "es": {
        "phone": "Teléfono",
        "whatsapp": "WhatsApp",
        "chat": "Chat",
        "email": "Correo electrónico",
        "address": "Dirección",
        "hours": "Horario",
        "booking": "Reservas",
        "title": "Contacto",
    },
    "tr": {
        "phone": "Telefon",
        "whatsapp": "WhatsApp",
        "chat": "Mesajlaşma",
        "email": "E-posta",
        "address": "Adres",
        "hours": "Çalışma saatleri",
        "booking": "Rezervasyon",
        "title": "İletişim",
    },
    "ko": {
        "phone": "전화번호",
        "whatsapp": "WhatsApp",
        "chat": "메신저",
        "email": "이메일",
        "address": "주소",
        "hours": "영업시간",
        "booking": "예약",
        "title": "연락처",
    },
    "ja": {
        "phone": "電話番号",
        "whatsapp": "WhatsApp",
        "chat": "メッセージ",
        "email": "メール",
        "address": "住所",
        "hours": "営業時間",
        "booking": "予約",
        "title": "お問い合わせ",
    },
    "zh": {
        "phone": "电话",
        "whatsapp": "WhatsApp",
        "chat": "聊天",
        "email": "电子邮件",
        "address": "地址",
        "hours": "营业时间",
        "booking": "预约",
        "title": "联系方式",
    },
    "el": {
        "phone": "Τηλέφωνο",
        "whatsapp": "WhatsApp",
        "chat": "Συνομιλία",
        "email": "Email",
        "address": "Διεύθυνση",
        "hours": "Ωράριο",
        "booking": "Κρατήσεις",
        "title": "Επικοινωνία",
    },
    "fi": {
        "phone": "Puhelin",
        "whatsapp": "WhatsApp",
        "chat": "Viestit",
        "email": "Sähköposti",
        "address": "Osoite",
        "hours": "Aukioloajat",
        "booking": "Varaukset",
        "title": "Yhteystiedot",
    },
    "hu": {
        "phone": "Telefon",
        "whatsapp": "WhatsApp",
        "chat": "Üzenet",
        "email": "E-mail",
        "address": "Cím",
        "hours": "Nyitvatartás",
        "booking": "Időpontfoglalás",
        "title": "Kapcsolat",
    },
    "ro": {
        "phone": "Telefon",
        "whatsapp": "WhatsApp",
        "chat": "Mesaje",
        "email": "E-mail",
        "address": "Adresă",
        "hours": "Program",
        "booking": "Rezervări",
        "title": "Contact",
    },
    "pl": {
        "phone": "Telefon",
        "whatsapp": "WhatsApp",
        "chat": "Czat",
        "email": "E-mail",
        "address": "Adres",
        "hours": "Godziny otwarcia",
        "booking": "Rezerwacja",
        "title": "Kontakt",
    },
    "fr": {
        "phone": "Téléphone",
        "whatsapp": "WhatsApp",
        "chat": "Messagerie",
        "email": "E-mail",
        "address": "Adresse",
        "hours": "Horaires",
        "booking": "Réservation",
        "title": "Contact",
    },
    "it": {
        "phone": "Telefono",
        "whatsapp": "WhatsApp",
        "chat": "Chat",
        "email": "E-mail",
        "address": "Indirizzo",
        "hours": "Orari di apertura",
        "booking": "Prenotazioni",
        "title": "Contatti",
    },
    "nl": {
        "phone": "Telefoon",
        "whatsapp": "WhatsApp",
        "chat": "Chat",
        "email": "E-mail",
        "address": "Adres",
        "hours": "Openingstijden",
        "booking": "Reserveren",
        "title": "Contact",
    },
    "uk": {
        "phone": "Телефон",
        "whatsapp": "WhatsApp",
        "chat": "Чат",
        "email": "E-mail",
        "address": "Адреса",
        "hours": "Графік роботи",
        "booking": "Запис",
        "title": "Контакти",
    },
    "ru": {
        "phone": "Телефон",
        "whatsapp": "WhatsApp",
        "chat": "Чат",
        "email": "E-mail",
        "address": "Адрес",
        "hours": "Часы работы",
        "booking": "Запись",
        "title": "Контакты",
    },
    "he": {
        "phone": "טלפון",
        "whatsapp": "וואטסאפ",
        "chat": "צ'אט",
        "email": 'דוא"ל',
        "address": "כתובת",
        "hours": "שעות פתיחה",
        "booking": "הזמנות",
        "title": "צור קשר",
    },
    "id": {
        "phone": "Telepon",
        "whatsapp": "WhatsApp",
        "chat": "Chat",
        "email": "Email",
        "address": "Alamat",
        "hours": "Jam buka",
        "booking": "Pemesanan",
        "title": "Kontak",
    },
    "vi": {
        "phone": "Điện thoại",
        "whatsapp": "WhatsApp",
        "chat": "Nhắn tin",
        "email": "Email",
        "address": "Địa chỉ",
        "hours": "Giờ mở cửa",
        "booking": "Đặt lịch",
        "title": "Liên hệ",
    },
    "pt": {
        "phone": "Telefone",
        "whatsapp": "WhatsApp",
        "chat": "Chat",
        "email": "E-mail",
        "address": "Endereço",
        "hours": "Horário de funcionamento",
        "booking": "Reservas",
        "title": "Contato",
    },
    "sv": {
        "phone": "Telefon",
        "whatsapp": "WhatsApp",
        "chat": "Chatt",
        "email": "E-post",
        "address": "Adress",
        "hours": "Öppettider",
        "booking": "Bokning",
        "title": "Kontakt",
    },
    "da": {
        "phone": "Telefon",
        "whatsapp": "WhatsApp",
        "chat": "Chat",
        "email": "E-mail",
        "address": "Adresse",
        "hours": "Åbningstider",
        "booking": "Booking",
        "title": "Kontakt",
    },
    "nb": {
        "phone": "Telefon",
        "whatsapp": "WhatsApp",
        "chat": "Chat",
        "email": "E-post",
        "address": "Adresse",
        "hours": "Åpningstider",
        "booking": "Timebestilling",
        "title": "Kontakt",
    },
    "cs": {
        "phone": "Telefon",
        "whatsapp": "WhatsApp",
        "chat": "Chat",
        "email": "E-mail",
        "address": "Adresa",
        "hours": "Otevírací doba",
        "booking": "Rezervace",
        "title": "Kontakt",
    },
    "sk": {
        "phone": "Telefón",
        "whatsapp": "WhatsApp",
        "chat": "Chat",
        "email": "E-mail",
        "address": "Adresa",
        "hours": "Otváracie hodiny",
        "booking": "Rezervácia",
        "title": "Kontakt",
    },
    "hr": {
        "phone": "Telefon",
        "whatsapp": "WhatsApp",
        "chat": "Chat",
        "email": "E-mail",
        "address": "Adresa",
        "hours": "Radno vrijeme",
        "booking": "Rezervacija",
        "title": "Kontakt",
    },
    "th": {
        "phone": "โทรศัพท์",
        "whatsapp": "WhatsApp",
        "chat": "แชท",
        "email": "อีเมล",
        "address": "ที่อยู่",
        "hours": "เวลาทำการ",
        "booking": "จอง",
        "title": "ติดต่อ",
    },
    "ar": {
        "phone": "الهاتف",
        "whatsapp": "واتساب",
        "chat": "دردشة",
        "email": "البريد الإلكتروني",
        "address": "العنوان",
        "hours": "ساعات العمل",
        "booking": "الحجز",
        "title": "اتصل بنا",
    },
    "fa": {
        "phone": "تلفن",
        "whatsapp": "واتساپ",
        "chat": "چت",
        "email": "ایمیل",
        "address": "نشانی",
        "hours": "ساعات کاری",
        "booking": "نوبت‌دهی",
        "title": "تماس با ما",
    },
    "bg": {
        "phone": "Телефон",
        "whatsapp": "WhatsApp",
        "chat": "Чат",
        "email": "Имейл",
        "address": "Адрес",
        "hours": "Работно време",
        "booking": "Резервации",
        "title": "Контакти",
    },
    "ca": {
        "phone": "Telèfon",
        "whatsapp": "WhatsApp",
        "chat": "Xat",
        "email": "Correu electrònic",
        "address": "Adreça",
        "hours": "Horari",
        "booking": "Reserves",
        "title": "Contacte",
    },
    "sl": {
        "phone": "Telefon",
        "whatsapp": "WhatsApp",
        "chat": "Klepet",
        "email": "E-pošta",
        "address": "Naslov",
        "hours": "Delovni čas",
        "booking": "Naročanje",
        "title": "Kontakt",
    },
    "et": {
        "phone": "Telefon",
        "whatsapp": "WhatsApp",
        "chat": "Vestlus",
        "email": "E-post",
        "address": "Aadress",
        "hours": "Lahtiolekuajad",
        "booking": "Broneerimine",
        "title": "Kontakt",
    },
    "lt": {
        "phone": "Telefonas",
        "whatsapp": "WhatsApp",
        "chat": "Pokalbis",
        "email": "El. paštas",
        "address": "Adresas",
        "hours": "Darbo laikas",
        "booking": "Registracija",
        "title": "Kontaktai",
    },
    "lv": {
        "phone": "Tālrunis",
        "whatsapp": "WhatsApp",
        "chat": "Tērzēšana",
        "email": "E-pasts",
        "address": "Adrese",
        "hours": "Darba laiks",
        "booking": "Pieteikšanās",
        "title": "Kontakti",
    },
}
LABELS["no"] = LABELS["nb"]  # Norwegian, as pages declare it either way

_PHONE = re.compile(r"(?<![\w+])(\+?\(?\d[\d ()./\-\u00a0]{5,18}\d)(?!\w)")
_EMAIL = re.compile(r"(?<![\w.+-])([\w.+-]+@[\w-]+(?:\.[\w-]+)+)")
_PHONE_WORDS = re.compile(
    r"\b(tel|tél|phone|telefon|telephone|teléfono|telefono|telèfon|telefonas|tālr|tālrunis|mob(?=\s?[.:])|mobiil|fono|móvil|movil|mòbil|mobile|mobil|handy|gsm|"
    r"call|llámanos|llamanos|anrufen|ara|arayın|τηλ|τηλέφωνο|τηλέφωνα|τηλεφωνο|κινητό|κινητο|puhelin|puh|"
    r"telefonszám|điện thoại|đt|sđt|di động|hotline|zalo|telepon|telp|tlp|no\. hp|nomor hp|"
    r"тел|телефон|моб|мобільний|мобильный|реєстратура|регистратура|ב?טלפון|טלפונים|נייד|התקשרו|טל(?=\s?[:'׳]))\b|전화|☎|📞|電話|电话|ＴＥＬ"
    # a number to text, as a line's label: "Text: …", "Text us at …", "SMS: …"
    r"|^\W*(?:text(?:\s+us)?|sms|mensajes de texto)\s*(?:[:：]|at\b)",
    re.IGNORECASE,
)
_FAX = re.compile(r"\b(?:fax|telefax|faks|télécopie|telecopia|φαξ|פקס)\b|팩스|传真|ファックス|ファクス", re.IGNORECASE)
# A company's register and tax numbers, which footers write beside the phone number
# ("KvK: 12345678 | BTW: … | Tel. 020 …"): the number they label is no phone.
_REGISTRY = re.compile(
    r"\b(?:kvk|k\.v\.k|btw|vat|tva|ust|ust-?idnr|uid|st\.?-?nr|steuer\w*|hr[ab]|handelsregister|"
    r"registergericht|amtsgericht|org\.?\s?nr|organisationsnummer|orgnr|cvr|cif|nif|rfc|cnpj|cpf|siret|siren|"
    r"rcs|p\.?\s?iva|partita iva|codice fiscale|abn|acn|company (?:no|number)|registered|"
    r"reg(?:istration)?\.?\s?(?:no|nr|number)|ičo|dič|nip|regon|krs|vergi\w*|vkn|mersis|ticaret sicil\w*|"
    r"y-tunnus|zvr|gln|iban|bic|swift|konto\w*|blz|инн|огрн|кпп|mã số doanh nghiệp|mã số thuế|mst(?=\s*[:：])|gpkd|npwp|nib|siup|"
    r"số tài khoản|stk|registrikood|reg\.?\s?kood|kmkr|įmonės kodas|imones kodas|pvm(?: mokėtojo)? kodas|reģ\.?\s?nr|pvn)\b|사업자|통신판매|法人番号|登録番号",
    re.IGNORECASE,
)
_HOURS_WORDS = re.compile(
    r"\b(opening hours|(?:office|business|store|shop|our|service|visiting) hours|hours(?=\s*[:：])|open|"
    r"öffnungszeiten|geöffnet|sprechzeiten|horario|abierto|çalışma saatleri|açık|"
    r"horaires|ouvert|orari|aperto|aperti|openingstijden|geopend|aberto|aberta|abertos|horário|funcionamento|"
    r"godziny otwarcia|czynne|otwarte|otevírací doba|otevřeno|otváracie hodiny|ordinačné hodiny|otvorené|öppettider|öppet|åpningstider|åbningstider|"
    r"ωράριο|ώρες λειτουργίας|ανοιχτά|ανοιχτό|ανοικτά|aukioloajat|avoinna|nyitvatartás|nyitva|deschis|"
    r"giờ mở cửa|mở cửa|giờ làm việc|thời gian làm việc|jam buka|jam operasional|jam kerja|jam kantor|buka|"
    r"графік роботи|години роботи|режим роботи|працюємо|график работы|режим работы|часы работы|работаем|работно време|отворено|работим|"
    r"radno vrijeme|otvoreno|radimo|lahtiolekuajad|lahtiolekuaeg|avatud|tööaeg|darbo laikas|darbo valandos|dirbame|darba laiks|atvērts|strādājam|horari|obert|oberts|delovni čas|odpiralni čas|ordinacijski čas|urnik|odprto|ساعات العمل|ساعات الدوام|أوقات العمل|مواعيد العمل|الدوام|"
    r"שעות פתיחה|שעות הפתיחה|שעות פעילות|שעות הפעילות|פתוח|פתוחים|פתוחה)\b|"
    r"ساعات کاری|ساعت کاری|ساعات پذیرش|زمان پذیرش|ساعات کار|"
    r"영업시간|운영시간|진료\s*시간|営業時間|営業日|受付時間|診療時間|営業|营业时间|營業時間|門診時間|看診時間|"
    r"เวลาทำการ|เวลาเปิด(?:ทำการ|บริการ)?",
    re.IGNORECASE,
)
# Each weekday's names, Monday first, in the card's languages: hours are shown in the
# order of the week, and a day said to be closed is an opening-hours fact too. Polish
# with its cases ("od poniedziałku do piątku", "w soboty"); Czech, Slovak, Swedish, Danish and
# Norwegian in full, their plurals ("lördagar") and definite forms ("om lørdagen"), as
# their short names are words elsewhere ("so", "man", "ons", "tor").
_NORDIC = (("måndag", "mandag"), ("tisdag", "tirsdag"), ("onsdag",), ("torsdag",), ("fredag",))
_NORDIC += (("lördag", "lørdag"), ("söndag", "søndag"))
_WEEK = tuple(
    [*names.split(), *(f"{n}{end}" for n in nordic for end in ("", "ar", "e", "er", "en")), *korean.split()]
    for names, nordic, korean in zip(
        (
            "monday mondays mon mo montag montags lunes lun pazartesi pzt lundi lunedì maandag "
            "poniedziałek poniedziałki poniedziałku pon pn pondělí pondelok pondelka δευτέρα δευτερα δευ luni hétfő hétfőn maanantai maanantaina maanantaisin "
            "понеділок понеділка понеділком понедельник понедельника понедельникам понеделник понеделника понеделници ponedjeljak ponedjeljka ponedjeljkom الاثنين الإثنين dilluns ponedeljek ponedeljka ponedeljkih ponedeljku esmaspäev esmaspäeval esmaspäeviti esmaspäevast esmaspäevani esmaspäeva pirmadienis pirmadienį pirmadienio pirmadieniais pirmadieniui pirmdiena pirmdienā pirmdienās pirmdienas pirmdienu pirmdienai",
            "tuesday tuesdays tue tues di dienstag dienstags martes mar salı mardi martedì dinsdag "
            "wtorek wtorki wtorku wt úterý utorok utorka τρίτη τριτη τρι marți marţi kedd kedden tiistai tiistaina tiistaisin selasa вівторок вівторка вторник вторника вторници utorak utorka utorkom الثلاثاء dimarts torek torka torkih torku teisipäev teisipäeval teisipäeviti teisipäevast teisipäevani teisipäeva antradienis antradienį antradienio antradieniais otrdiena otrdienā otrdienās otrdienas otrdienu otrdienai",
            "wednesday wednesdays wed mi mittwoch mittwochs miércoles mié çarşamba mercredi mercoledì woensdag "
            "środa środy środę śr středa středu streda stredu stredy τετάρτη τεταρτη τετ miercuri szerda szerdán keskiviikko keskiviikkona keskiviikkoisin rabu середа середу середи среда среду сряда сряди srijeda srijede srijedu srijedom الأربعاء الاربعاء dimecres sreda sredo srede sredah kolmapäev kolmapäeval kolmapäeviti kolmapäevast kolmapäevani kolmapäeva trečiadienis trečiadienį trečiadienio trečiadieniais treciadienis trešdiena trešdienā trešdienās trešdienas trešdienu trešdienai",
            "thursday thursdays thu thurs do donnerstag donnerstags jueves jue perşembe jeudi giovedì donderdag "
            "czwartek czwartki czwartku czw čtvrtek štvrtok štvrtka πέμπτη πεμπτη πέμ πεμ joi csütörtök csütörtökön torstai torstaina torstaisin kamis четвер четверга четверг четвъртък четвъртъци četvrtak četvrtka četvrtkom الخميس dijous četrtek četrtka četrtkih četrtku neljapäev neljapäeval neljapäeviti neljapäevast neljapäevani neljapäeva ketvirtadienis ketvirtadienį ketvirtadienio ketvirtadieniais ceturtdiena ceturtdienā ceturtdienās ceturtdienas ceturtdienu ceturtdienai",
            "friday fridays fri fr freitag freitags viernes vie cuma vendredi venerdì vrijdag piątek piątki piątku pt pátek piatok piatka "
            "παρασκευή παρασκευη παρ vineri péntek pénteken perjantai perjantaina perjantaisin jumat пятница пятницу пятницы петък петъци petak petka petkom الجمعة divendres petek petkih petku reede reedel reedeti reedest reedeni penktadienis penktadienį penktadienio penktadieniais piektdiena piektdienā piektdienās piektdienas piektdienu piektdienai",
            "saturday saturdays sat sa samstag samstags sábado sábados sáb sab cumartesi cmt samedi sam sabato zaterdag "
            "sobota soboty sobotę sobotu sob σάββατο σαββατο σάββατα σαββατα σάβ σαβ sâmbătă sâmbăta sambata szombat szombaton lauantai lauantaina lauantaisin sabtu субота суботу суботи суботам суббота субботу субботы субботам събота съботи subota subotom subote subotu السبت dissabte dissabtes soboto sobote sobotah soboti laupäev laupäeval laupäeviti laupäevast laupäevani laupäeva šeštadienis šeštadienį šeštadienio šeštadieniais sestadienis sestdiena sestdienā sestdienās sestdienas sestdienu sestdienai",
            "sunday sundays sun so sonntag sonntags domingo domingos dom pazar dimanche dim domenica zondag "
            "niedziela niedziele niedzieli niedzielę niedz nd neděle neděli nedeľa nedeľu nedele κυριακή κυριακη κυριακές κυριακες κυρ duminică duminica "
            "vasárnap vasárnapon sunnuntai sunnuntaina sunnuntaisin неділя неділю неділі неділям воскресенье воскресенья неделя nedjelja nedjelje nedjelju nedjeljom الأحد الاحد diumenge diumenges nedelja nedeljo nedelje nedeljah nedelji pühapäev pühapäeval pühapäeviti pühapäevast pühapäevani pühapäeva sekmadienis sekmadienį sekmadienio sekmadieniais svētdiena svētdienā svētdienās svētdienas svētdienu svētdienai",
        ),
        _NORDIC,
        (
            "월요일 월",
            "화요일 화",
            "수요일 수",
            "목요일 목",
            "금요일 금",
            "토요일 토",
            "일요일 일",
        ),  # the letter last: weekday()
        strict=True,
    )
)
_WEEKDAY_OF = {name: i for i, names in enumerate(_WEEK) for name in names}
# Portuguese weekdays are also ordinals ("segunda planta", "a quinta edição"): a day for
# the order of the week and in a range ("de segunda a sexta"), but an hours line needs
# the "-feira" form ("segunda-feira") to be found.
_PT_WEEKDAYS = {"segunda": 0, "terça": 1, "terca": 1, "quarta": 2, "quinta": 3, "sexta": 4}
_WEEKDAY_OF |= _PT_WEEKDAYS
# Said of the whole week, from its start: "täglich", "todos os dias", "elke dag".
_EVERY_DAY = (
    "weekdays",
    "daily",
    "täglich",
    "werktags",
    "todos los días",
    "todos os dias",
    "tous les jours",
    "tutti i giorni",
    "elke dag",
    "dagelijks",
    "her gün",
    "codziennie",
    "denně",
    "dagligen",
    "daglig",
    "alle dage",
    "hver dag",
    "varje dag",
    "καθημερινά",
    "καθημερινα",
    "zilnic",
    "cada dia",
    "tots els dies",
    "vsak dan",
    "iga päev",
    "kasdien",
    "kiekvieną dieną",
    "katru dienu",
    "naponta",
    "päivittäin",
    "hằng ngày",
    "hàng ngày",
    "mỗi ngày",
    "tất cả các ngày",
    "setiap hari",
    "tiap hari",
    "щодня",
    "без вихідних",
    "ежедневно",
    "без выходных",
    "يومياً",
    "يوميا",
    "كل يوم",
    "svaki dan",
    "svakim danom",
    "כל ימות השבוע",  # not "כל יום": "כל יום שני" is every Monday
    "radnim danima",
)
# Chinese "星期一", "周六", "週六" (Traditional), "禮拜六" (as Taiwan speaks it); not the week
# of "每週一次" (once a week) or "兩週一次" (every two weeks).
_CHINESE_WEEKDAY = r"(?:星期|禮拜|礼拜|(?<![一二兩两三四五六七八九十幾几數数隔上下本這这])[周週])"
# "每週一公休" (closed every Monday), "週六日" (Saturday and Sunday); not Japanese "週三日勤務"
# (three days a week) or "週一度" (once a week), nor "每週一次"
_CHINESE_DAY_NAME = r"(?:[一二三四五](?![日回度次遍])|六(?![回度次遍])|[日天](?![次回遍]))"
_CHINESE_DAY = _CHINESE_WEEKDAY + _CHINESE_DAY_NAME
# Thai "วันจันทร์" (Monday): a name after "วัน" (day); Thai writes no spaces, so no \b.
_THAI_NAMES = ["จันทร์", "อังคาร", "พุธ", "พฤหัสบดี", "ศุกร์", "เสาร์", "อาทิตย์"]
_THAI_NAME = "(?:" + "|".join(sorted([*_THAI_NAMES, "พฤหัส"], key=len, reverse=True)) + ")"  # and Thursday short
_THAI_DAY = "วัน" + _THAI_NAME
_THAI_EVERY_DAY = "ทุกวัน(?!" + _THAI_NAME + ")"  # "เปิดทุกวัน" (open every day); "ทุกวันอังคาร" is every Tuesday
# Arabic-script letters, Persian's among them: not "،" or "؟", which stand beside words
PERSIAN_LETTERS = "\u0620-\u064a\u066e-\u06d3"
# Persian days: Saturday, "شنبه", and the days after it counted from it ("یکشنبه", one-Saturday,
# is Sunday; "سه‌شنبه" or "سه شنبه" Tuesday), then Friday, "جمعه"; and their plurals
# ("شنبه‌ها"); a zero-width space, a soft hyphen or a kashida may stand for the half-space.
# Arabic keyboards type "ي" and "ك" for Persian's "ی" and "ک". *ours*
_PERSIAN_DAY = f"(?<![{PERSIAN_LETTERS}])(?:([یي][کك]|دو|سه|چهار|پنج)[\u200b-\u200d\u00ad\u0640 ]?)?(شنبه|جمعه)(?:\u200c?ها)?(?![{PERSIAN_LETTERS}])"
_DAY = re.compile(
    r"\b("
    + "|".join([*sorted((n for names in _WEEK for n in names if len(n) > 2), key=len, reverse=True), *_EVERY_DAY])
    + r"|(?:segunda|terça|terca|quarta|quinta|sexta)-feira"
    + r"|(?:segunda|terça|terca|quarta|quinta)\s+(?:a|à|até)\s+(?:terça|quarta|quinta|sexta|sábado|sabado|domingo)"
    + r")\b|(?-i:\b(?:Mo|Di|Mi|Do|Fr|Sa|So|MO|DI|MI|DO|FR|SA|SO|Pn|Wt|Śr|Pt|Nd|WT|ŚR|PT|Minggu|MINGGU)\b)|"
    r"[월화수목금토일]요일|[월화수목금토일]\s*[-~–]\s*[월화수목금토일]|(?<![가-힣])[월화수목금토일](?:\s*[·,/]\s*[월화수목금토일])+(?![가-힣])|"
    r"[月火水木金土日]曜|"
    + _CHINESE_DAY
    + "|"
    + _THAI_DAY
    + "|"
    + _THAI_EVERY_DAY
    + r"|(?<![\u4e00-\u9fff])[月火水木金土日](?:\s*[・·、]\s*[月火水木金土日])+|"
    + _PERSIAN_DAY,
    re.IGNORECASE,
)
_WORD = re.compile(r"\w+", re.UNICODE)
# A day named in full (no "so" or "do": they are words in other languages) beside a word
# for closed: "Lunes: cerrado", "Sonntag Ruhetag", "Pazar kapalı", "일요일 휴무".
_FULL_DAY = re.compile(
    r"\b("
    + "|".join(n for names in _WEEK for n in names if len(n) > 3)
    + r")\b|(?-i:\bMinggu\b)|\bп['’ʼ]ятниц\w*|[월화수목금토일]요일|[月火水木金土日]曜|"
    + _CHINESE_DAY
    + "|"
    + _THAI_DAY
    + "|"
    + _PERSIAN_DAY,
    re.IGNORECASE,
)
_CLOSED = re.compile(
    r"\b(closed|geschlossen|ruhetag|cerrado|cerramos|kapalı|kapali|fermé|fermée|fermeture|chiuso|fechado|gesloten|"
    r"nieczynne|nieczynny|nieczynna|zamknięte|zamknięty|zamknięta|zavřeno|zatvorené|stängt|stengt|lukket|"
    r"κλειστά|κλειστό|κλειστή|κλειστοί|κλειστα|κλειστο|închis|închisă|inchis|zárva|suljettu|kiinni|zatvoreno|zatvoren|zatvorena|tancat|tancada|tancats|tanquem|zaprto|zaprti|zaprta|suletud|puhkepäev|uždaryta|uzdaryta|nedirbame|nedirba|slēgts|slēgta|nestrādājam|nghỉ|đóng cửa|tutup|libur|вихідний|вихідні|зачинено|зачинені|выходной|выходные|закрыто|затворено|затворена|затворени|почивен ден|почивни дни)\b|"
    r"휴무|휴진|휴일|定休日|定休|休業|休診|休館|公休|休息|"
    r"\b(?:مغلق|مغلقة|مغلقين|مسكر|مسكّر|مسكرين|مسكّرين|مقفل|عطلة|إجازة|اجازة)\b|\b(?:ne radimo|neradni dan|neradno)\b|"
    r"(?<![\u05d0-\u05ea])ו?(?:סגור|סגורה|סגורים|סגורות)(?![\u05d0-\u05ea])|"
    rf"(?<![{PERSIAN_LETTERS}])(?:تعطیل|تعطيل)(?:ه|یم|ید|ین)?(?![{PERSIAN_LETTERS}])|"
    # Thai "ปิด" (closed) is inside "เปิด" (open): "เปิดบริการ", "เปิดทุกวัน"
    r"店休|不營業|不营业|(?<!เ)ปิด(?:ทำการ|บริการ|ทุก|วัน)|หยุดทำการ|หยุดประจำ|หยุดทุก|(?<![ก-๛])(?:ปิด|หยุด)(?![ก-๛])|"
    r"(?<=[ก-๛])(?<!เ)ปิด(?![ก-๛])",
    re.IGNORECASE,
)
# A day kept for appointments is part of the week too: "Fr nach Vereinbarung", "Friday by appointment".
_BY_APPOINTMENT = re.compile(
    r"\b(?:(?:only )?by appointment(?: only)?|nach (?:termin)?vereinbarung|sur rendez-vous|sur rdv|su appuntamento|"
    r"(?:con |previa )?cita previa|op afspraak|randevu ile|com marcação|por marcação|mediante marcação)(?!\w)|예약제",
    re.IGNORECASE,
)
# Hours to call, not to come: "Am Telefon erreichen Sie uns Mo–Do 8–12 Uhr", "Call us
# Monday–Friday 8am–4pm", or any line under "Telefonische Erreichbarkeit".
_PHONE_HOURS = re.compile(
    r"\b(?:telefon\w*|phone|telephone|call us|anrufen|rufen sie|teléfono|telefónic\w*|llámanos|llamadas|"
    r"téléphon\w*|appelez|telefono|telefonic\w*|chiamateci|telefoon\w*|bel ons|telefone|telefónica|ligue|"
    r"arayın|telefonla|τηλεφωνικά|τηλεφωνικα|τηλέφωνο|τηλεφωνο)\b|전화|電話|电话",
    re.IGNORECASE,
)
# Arabic writes the time of day after a time: "٨:٠٠ صباحاً – ٦:٠٠ مساءً" (morning, evening).
_AR_DAYTIME = r"(?:صباح|مساء|ظهر|عصر|ليل)(?:اً|ًا|ا|ً)?|[صم](?![\u0600-\u06ff])"  # "٩ص - ٩م"
_AR_AFTERNOON = ("مساء", "ظهر", "عصر", "ليل", "م")
_TIME_RANGE = re.compile(
    r"(?<![\d.,:/])(?:\d{1,2}(?:[:.]\d{2})?\s*(?:h|uhr|am|pm|a\.m\.|p\.m\.|" + _AR_DAYTIME + r")?\s*"
    r"(?:-|–|—|~|～|〜|－|to|bis|a|hasta|ile|حتى|إلى|الى|لغاية|تا|الی|لغایت)"
    # "das 8h00 às 22h00", "de 10h à 18h", "van 9.00 tot 18.00": these words join times
    # written as times ("2 tot 4 fietsen" is no range of hours)
    r"|\d{1,2}(?:[:.]\d{2}|h\d{0,2})\s*(?:à|às|alle|tot|até|do|έως|εως))\s*(?:오전|오후|الساعة)?\s*\d{1,2}(?:[:.]\d{2})?(?![\d%])",
    re.IGNORECASE,
)
# "Open today until 7 pm", "Ouvert aujourd'hui jusqu'à 19h": a widget's status, not the week's
# hours ("Contact us today, Monday to Friday 8–8" is)
_TODAY = re.compile(r"\b(?:today|tonight|heute|hoy|aujourd'hui|aujourd’hui|oggi|vandaag|hoje|bugün)\b|오늘")
# A dated line is an event, not the hours (a phone's digits are not): 2024, Thailand's 2567,
# Taiwan's 113年.
_YEAR = re.compile(r"(?<!\d)(?:19|20|25)\d\d(?!\d)|(?<!\d)1[01]\d(?=\s*年)|(?<!\d)۱۴[۰-۹]{2}(?!\d)")  # and Iran's ۱۴۰۴
# An opening time without a closing one, or the other way round: "Montags ab 18 Uhr",
# "every Monday from 6pm", "desde las 20:00", "18:00'den itibaren", "오후 6시부터",
# "Donnerstag Abendverkauf bis 20.00 Uhr"; the time carries a unit or minutes ("ab 5
# Personen" is no time).
_TIME_FROM = re.compile(
    r"\b(?:ab|from|desde(?: las)?|a partir de(?: las)?|à partir de|dès|bis|until|till|jusqu'à|jusqu’à|"
    r"hasta(?: las)?|fino alle|até às|até)\s+"
    r"\d{1,2}(?:[:.]\d{2}\s*(?:uhr|h|am|pm|a\.m\.|p\.m\.)?|\s*(?:uhr|h|am|pm|a\.m\.|p\.m\.))(?!\w)"
    r"|\d{1,2}[:.]\d{2}'?(?:den|dan|ten|tan) itibaren|\d{1,2}시부터",
    re.IGNORECASE,
)
# A sentence ends at "!" or "?", or at a full stop after a word of three letters or
# more, a digit or "am"/"pm", before a letter: "Mo. - Fr." and "Str. 16" go on. *ours*
_SENTENCE_END = re.compile(r"(?:(?<=[!?])|(?<=\w\w\w\.)|(?<=\d\.)|(?<=\s[ap]m\.))\s+(?=[^\W\d_])")
_EVERY = {"every", "each", "immer", "jeden", "jede", "todos", "cada", "chaque", "tous", "ogni", "elke", "her"}
_EVERY |= {"każdy", "każdą", "każda", "każde", "varje", "hver"}
_HOLIDAYS = {
    "public",
    "holidays",
    "holiday",
    "feiertag",
    "feiertags",
    "feiertagen",
    "festivos",
    "festivo",
    "fériés",
    "jours",
    "tatil",
    "tatillerde",
    "bayram",
    "bayramlarda",
    "festivi",
    "feestdagen",
    "święta",
    "świąt",
    "svátky",
    "helgdagar",
    "helligdage",
    "helligdager",
    "공휴일",
}
_ADDRESS_WORDS = re.compile(
    r"^\s*(address|adresse|anschrift|aadress|adresas|adrese|dirección|direccion|adres|adresa|adress|διεύθυνση|διευθυνση|morada|endereço|endereco|indirizzo|osoite|käyntiosoite|cím|địa chỉ|alamat|адреса|адрес|주소|住所|所在地|地址|כתובת|כתובתנו|כתובת (?:המשרד|החנות|הסניף|המסעדה|הקליניקה|המרפאה)|"
    r"visit us|find us|"
    r"so finden sie uns)\s*[:：]",
    re.IGNORECASE,
)
# Someone else's details, as legal pages and footers give them: the web agency, the host,
# the photographer, the supervising chamber ("Website: Agentur Webwerk Wien, Tel. …",
# "Hébergeur : OVH SAS, 2 rue Kellermann, 59100 Roubaix"). A line starting with such a
# role (then a colon, or "by"), a line saying "hosted by", or a heading naming the role
# makes the phones, e-mails and addresses after it, to the end of its paragraph or
# section, none of the business's.
_ROLES = (
    r"web\s?design|webdesigner|web\s?agency|webagentur|agentur|agency|website|webseite|homepage|design|"
    r"gestaltung|konzept(?:ion)?|umsetzung|technische umsetzung|realisierung|programmierung|webentwicklung|"
    r"web development|hosting|hoster|hosting provider|fotos?|photos?|fotografie|photography|"
    r"bildnachweis|bildrechte|bildquellen|image credits?|photo credits?|crédits?(?: photos?)?|aufsichtsbehörde|"
    r"zuständige (?:kammer|behörde|aufsichtsbehörde)|\w*kammer|supervisory authority|datenschutzbeauftragter?|"
    r"data protection officer|délégué à la protection des données|(?:online-)?streitschlichtung|"
    r"\w*schlichtungsstelle|diseño(?: web)?|desarrollo(?: web)?|alojamiento(?: web)?|web tasarım|tasarım|"
    r"barındırma|hébergeur|hébergement|conception|réalisation|sviluppo|realizzazione|progettazione|"
    r"hosting e sviluppo|ontwerp|webbouw|alojamento|desenvolvimento|웹\s?디자인|호스팅|제작|"
    r"tárhelyszolgáltató|tárhely|webfejlesztés|weboldal készítője|verkkosivut|kotisivut|sivuston toteutus|"
    r"thiết kế(?: website| web)?|đơn vị (?:thiết kế|quản trị)(?: website)?|quản trị website|lưu trữ(?: website)?|"
    r"pengembang(?: situs| website| web)?|pembuat(?: situs| website| web)?|desain web|"
    r"розробка сайту|створення сайту|веб-студія|розробник сайту|разработка сайта|создание сайта|веб-студия|хостинг|"
    r"izrada(?:,? hosting i održavanje| i održavanje)? web stranic[ae]|web dizajn|održavanje web stranic[ae]|"
    # Catalan and Slovenian: "Disseny, allotjament i manteniment del lloc web", "Plataforma de
    # reserves en línia"; "Izdelava, gostovanje in vzdrževanje spletne strani", "Spletni
    # rezervacijski sistem"; and booking platforms in the languages before
    r"disseny(?: web)?|allotjament(?: web)?|desenvolupament(?: web)?|manteniment(?: web)?|"
    r"plataforma de (?:reserves|reservas|pagament|pago)\w*(?: en l[íi]nia| online)?|"
    r"izdelava(?: spletne strani| spletnega mesta)?|gostovanje|vzdrževanje spletne strani|spletni studio|"
    r"(?:spletni )?rezervacijski sistem|sistem za (?:rezervacije|naročanje)|"
    # Estonian, Lithuanian, Latvian: "Veebilehe arendus ja haldus", "Svetainės kūrimas",
    # "Mājaslapas izstrāde", and their booking systems
    r"veebiagentuur|veebidisain|veebiarendus|veebilehe (?:valmistamine|arendus|haldus)|kodulehe (?:valmistamine|arendus)|"
    r"veebimajutus|serverimajutus|broneerimissüsteem|broneerimiskeskkond|broneerimisplatvorm|"
    r"svetainės (?:kūrimas|kūrėjas|priežiūra)|svetainių kūrimas|interneto svetainės kūrimas|talpinimas|"
    r"registracijos (?:platforma|sistema)|rezervacijų (?:platforma|sistema)|"
    r"mājaslapas (?:izstrāde|izstrādātājs|uzturēšana)|mājas lapas izstrāde|hostings|rezervēšanas (?:sistēma|platforma)|"
    r"booking (?:platform|system|software)|reservation system|online booking (?:platform|system)|sistema de reservas|"
    r"تصميم (?:و ?تطوير )?الموقع|تطوير الموقع|استضافة الموقع|網站設計|网站设计|網站製作|网站制作|網頁設計|网页设计|"
    # Hebrew: "בניית אתרים" (website building), "פיתוח ואחסון האתר" (the site's development and hosting)
    r"(?:עיצוב|פיתוח|בניית|אחסון|תחזוקת)(?:\s+ו(?:עיצוב|פיתוח|בניית|אחסון|תחזוקת))*\s+ה?אתר(?:ים)?|"
    r"ממונה על הגנת הפרטיות|צילום|צילומים|עיצוב גרפי|"
    # Thai: "เว็บไซต์" ends in a mark \w does not take, so the word ends (\b) before it
    r"ผู้พัฒนา(?:และดูแล)?เว็บไซต(?=์)|ผู้ดูแลเว็บไซต(?=์)|ผู้ออกแบบ(?:และพัฒนา)?เว็บไซต(?=์)|ผู้ให้บริการ(?:รับชำระเงิน|ชำระเงิน|โฮสติ้ง|เซิร์ฟเวอร์|พื้นที่เว็บ)[ก-๛]*"
)
_OTHER_ROLE = re.compile(
    rf"^\W*(?:{_ROLES})\b[^:：\n]{{0,50}}?(?:\s*[:：]|\s(?:by|von|durch|por|par|da|door|tarafından|על ידי|על-ידי|ע\"י|ע״י)(?!\w))",
    re.IGNORECASE,
)
# "Hébergement du site", "Konzept, Design und Programmierung"; not "Photos from reviews"
_OTHER_HEADING = re.compile(
    rf"^\W*(?:{_ROLES})(?:\s*(?:&|\+|,|/|und|and|et|y|e|en|ve)\s*(?:{_ROLES}))*"
    r"(?:\s+(?:du site(?: internet| web)?|de la web|del sitio(?: web)?|der website|der webseite|of the (?:web)?site|web))?"
    r"\W*$",
    re.IGNORECASE,
)
_LABEL_LINE = re.compile(r"^\s*(?:\*\*[^*]{1,60}\*\*\s*:?|[^\W\d][^:]{0,50}:)\s*$")  # "**Hébergeur**", "Webdesign:"
_MADE_BY = re.compile(
    r"\b(?:hosted by|gehostet (?:bei|von)|gehostet durch|designed by|made by|powered by|site by|website by|"
    r"erstellt (?:von|durch)|realisiert (?:von|durch)|hébergé (?:par|chez)|réalisé par|conçu par|"
    r"alojad[oa] (?:en|por)|diseñad[oa] por|realizzato da|ospitato (?:da|su)|gemaakt door|gehost door|"
    r"desenvolvido por|alojado por|tarafından (?:tasarlanmıştır|barındırılmaktadır)|"
    r"(?:thiết kế|quản trị|phát triển|vận hành)(?: và (?:quản trị|phát triển|vận hành))?(?: kỹ thuật)? bởi|"
    r"(?:dibuat|dikembangkan|dikelola|didesain|dirancang)(?: dan (?:dikelola|dikembangkan|dirawat))? oleh|"
    r"сайт (?:розроблено|створено|разработан|создан)|"
    # "Aquest web l'ha dissenyat i el manté …", "es gestionen amb la plataforma …";
    # "Spletno stran je izdelala in jo vzdržuje agencija …", "uporabljamo sistem …"
    r"l'ha dissenyat|dissenyat (?:i mantingut )?per|es gestionen amb la plataforma|"
    r"spletno stran je (?:izdelala|izdelal|oblikovala|oblikoval)|uporabljamo sistem|njihova podpora|"
    r"(?:veebilehe|kodulehe) (?:valmistas|tegi|arendas)|svetainę sukūrė|svetainė sukurta|(?:mājaslapu|mājas lapu) izstrādāja|"
    r"(?:נבנה|נבנתה|פותח|פותחה|עוצב|עוצבה|מתוחזק|מאוחסן)(?:\s+ו\w+)?\s+(?:על ידי|על-ידי|ע\"י|ע״י)|חברת הסליקה|"
    r"(?:ל|ה)?ממונה על הגנת הפרטיות)\b",
    re.IGNORECASE,
)
_SITE_WORD = re.compile(r"^\W*(?:website|webseite|homepage)\W*$", re.IGNORECASE)
_ONLY_ADDRESS = re.compile(r"(?:https?://)?[\w.-]+\.[a-z]{2,}(?:/\S*)?|[\w.+-]+@[\w-]+(?:\.[\w-]+)+", re.IGNORECASE)


def other_party(line: str) -> bool:
    """A line about someone else: "Webdesign: Agentur X, Tel. …", "Hébergeur : OVH",
    "Le site est hébergé par OVH"; not "Website: www.physio.at" nor "Website:
    sales@digit.in" (the business's own site or address, labelled)."""
    match = _OTHER_ROLE.match(line)
    rest = line[match.end() :].strip() if match else ""
    if match and not _ONLY_ADDRESS.fullmatch(rest) and (rest or not _SITE_WORD.match(line)):
        return True  # "Website:" alone labels the address on the next line
    return bool(_MADE_BY.search(line))


# A paragraph's name, on a line of its own: "■根津店（お持ち帰り専門）", "【本店】".
_BRACKETED = r"[\[【]([^\]】]{1,30})[\]】]"  # "[강남점]", "【本店】"
# A bold line naming what follows, as a heading would: "**Doggy Daycare**", "**Grooming:**",
# for the next few lines (a service's week a day a line, and a note). *ours*
NAMED_LINES = 8
_BOLD_NAME = re.compile(r"^\s*\*\*[^*]{1,60}\*\*\s*:?\s*$")
_BLOCK_NAME = re.compile(rf"^[■●◆□◇▶]\s*(.{{1,30}})$|^{_BRACKETED}$")
# "〒110-0001 東京都台東区谷中3-11-8": a Japanese address, its postcode on the line before or not.
_JP_POSTCODE = re.compile(rf"^{JP_POSTCODE}$")
_JP_ADDRESS = re.compile(
    rf"(?:{JP_POSTCODE}\s*)?"
    r"(?:東京都|北海道|京都府|大阪府|[\u4e00-\u9fff]{2,3}県)[\u3040-\u30ff\u4e00-\u9fff]{2,20}"
    r"[0-9０-９]+(?:[-－ー丁目番地の][0-9０-９]+)*(?:[\s　]*[^\s、。（(]{1,30})?"
)
_DEFINITION = re.compile(r"^\s*:\s{2,}\S")  # markdownify's "term\n:   definition"
_LIST_MARK = re.compile(r"^\s*(?:[-+•·]|\d{1,2}[.)])\s+")
_STREET = (
    r"(?:(?:stra(?:ß|ss)e|str\.|weg|platz|gasse|allee|damm|ufer|straat|laan|plein|gracht|kade|steeg)"
    r"|\b(?:calle|c/|avenida|avda\.|carrer|paseo|plaza|rue|avenue|boulevard|chemin|place|quai|via|viale|piazza|rua|"
    r"cad\.|caddesi|sok\.|sokak|mah\.|road|street|lane|ulica|aleja|οδός|οδος|λεωφόρος|λεωφορος|πλατεία)\b|"
    r"\b(?:ul|al|os|οδ|λεωφ)\.(?!\w))"  # "ul. Zakopiańska 12", "Οδός Απόλλωνος 12"
)
# The first part of a US or UK address: a number and a street ("2210 NW 7th St", "221B Baker Street").
_US_STREET = (
    r"\d{1,6}[A-Za-z]?\s(?:(?!\d+\s)[^,\n·|•]){0,40}?\b(?:st|street|ave|avenue|rd|road|blvd|boulevard|dr|drive|ln|"
    r"lane|way|ct|court|pl|place|pkwy|parkway|hwy|highway|cir|circle|ter|terrace|trl|trail|sq|square|row|close|"
    r"crescent|gardens|mews|hill|walk|grove)\b\.?(?:\s+[NSEW]{1,2}\b)?"
)
_EU_ADDRESS = re.compile(
    r"(?<![\w-])((?:(?:[^\W\d]|\d+\.\s)[^,\n·|•:;+()]{0,50}?)?" + _STREET + r"[^,\n·|•\d]{0,30}?,?\s*\d{1,4}[a-zA-Z]?"
    r"(?:[-/]\d{1,4})?|\d{1,4}[a-zA-Z]?,?\s+" + _STREET + r"[^,\n·|•\d]{1,40}?)"
    # postcodes: "79098", "D-79098", "1000-001", "31-123" (Poland), "843 00" (Greece, Sweden, Czechia)
    r"\s*[,·|•–-]?\s*((?:[A-Z]{1,2}-)?\d{4,5}(?:-\d{3})?|\d{2}-\d{3}|\d{3}\s\d{2})\s+([^\W\d][\w'-]*(?:\s[^\W\d][\w'-]*){0,2})",
    re.IGNORECASE,
)
# _EU_ADDRESS's postcodes, found before the slow search for the whole address
_EU_POSTCODE = re.compile(r"\d{4}|\d{2}-\d{3}|\d{3}\s\d{2}")
_US_ADDRESS = re.compile(
    r"(?<![\w-])("
    + _US_STREET
    + r"(?:,?\s*(?:suite|ste\.?|apt\.?|unit|#)\s*[\w-]+)?,\s*[^,\n·|•]{2,30},?\s+(?-i:[A-Z]{2})\s+"
    r"\d{5}(?:-\d{4})?)\b",
    re.IGNORECASE,
)
_UK_ADDRESS = re.compile(
    r"(?<![\w-])(" + _US_STREET + r",\s*(?:[^,\n·|•]{2,30},\s*)?[A-Za-z .'-]{2,30}?\s+"
    r"(?-i:[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}))\b",
    re.IGNORECASE,
)
_TABLE_RULE = re.compile(r"^\s*+\|?\s*+:?-{3,}")
# "79098 Freiburg", "1100-544 Lisboa, Portugal", "3511 ZL Utrecht": a postcode, then a place without digits.
_POSTCODE_LINE = re.compile(  # "34710 Kadıköy/İstanbul": a district and its city
    r"^(?=.{6,60}$)(?:(?:[A-Z]{1,2}-)?\d{4,5}(?:-\d{3})?|\d{3}\s\d{2})\s+[^\W\d]+(?:[ .,'/-]+[^\W\d]+)*\.?$"
)
# "Curitiba – PR, CEP 80240-030", "CEP: 80240-030": a Brazilian postcode, after its place or alone.
_CEP_LINE = re.compile(r"^(?=.{8,70}$)(?:[^\W\d][\w .'–-]*?(?:\s*[–/-]\s*[A-Z]{2})?\s*,?\s*)?CEP:?\s*\d{5}-?\d{3}\.?$")
_STREET_LINE = re.compile(r"^(?=\D*+\d)\W*+\w\W*+\w")  # a digit and another letter or digit
_DIGIT = re.compile(r"\d")
# Messengers a business gives as a way to reach it, by the host of its chat link.
_CHAT_HOSTS = {
    "t.me": "Telegram",
    "telegram.me": "Telegram",
    "line.me": "LINE",
    "lin.ee": "LINE",
    "open.kakao.com": "KakaoTalk",
    "pf.kakao.com": "KakaoTalk",
    "m.me": "Messenger",
    "signal.me": "Signal",
    "matrix.to": "Matrix",
    "viber.click": "Viber",
}
# "KakaoTalk ID: gulumse_dental", "카카오톡(ID: gulumse_dental)", "Telegram: @rapidflow":
# a messenger's name, then an ID with a letter in it.
_CHAT_ID = re.compile(
    r"(?<![\w-])(kakaotalk|kakao talk|카카오톡|카톡|line|telegram|텔레그램|signal|viber|wechat|위챗|微信)\s*\(?\s*"
    r"(?:id|아이디)?\s*[:：]\s*(@?(?=[\w.-]*[A-Za-z])[\w.-]{3,32})",
    re.IGNORECASE,
)
_CHAT_WORDS = {"chat", "live chat", "chat with us", "chatte mit uns", "chat en vivo", "canlı sohbet", "채팅"}
_CHAT_NAMES = {"kakaotalk": "KakaoTalk", "kakao talk": "KakaoTalk", "카카오톡": "KakaoTalk", "카톡": "KakaoTalk"}
_CHAT_NAMES |= {"line": "LINE", "telegram": "Telegram", "텔레그램": "Telegram", "signal": "Signal", "viber": "Viber"}
_CHAT_NAMES |= {"wechat": "WeChat", "위챗": "WeChat", "微信": "WeChat"}
# "Book" as a verb: the link's first word ("Book now", "Book a repair online") or after
# "to"/"or"/"and" ("Click here to book", "Call or book online"); not a noun ("Complaints
# Book (Livro de Reclamações)", "Guest book", "Address Book").
_BOOKING_WORDS = re.compile(
    r"^[\W_]*book\b|\b(?:to|or|and)\s+book\b|\b(booking|reserve|reservation|reservar|reserva|buchen|termin( buchen| vereinbaren)?|rezervasyon|"
    r"randevu|réserver|rezerwacja|umów wizytę|rezervace|boka|κράτηση|κρατήσεις|broneeri|broneerimine|registreeru|registruotis|rezervuoti|pieteikties|pierakstīties|rezervēt)\b|예약|予約|预约|預約",
    re.IGNORECASE,
)
_SCHEMA_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_SHORT_DAYS = {"Mo": "Monday", "Tu": "Tuesday", "We": "Wednesday", "Th": "Thursday", "Fr": "Friday"}
_SHORT_DAYS |= {"Sa": "Saturday", "Su": "Sunday"}


def _clean(text: str, limit: int = MAX_VALUE_CHARS) -> str:
    return " ".join((text or "").split())[:limit]


def _plausible_phone(text: str) -> str | None:
    value = _clean(text).strip(" .-/")
    digits = re.sub(r"\D", "", value)
    if not 7 <= len(digits) <= 15:
        return None
    if re.fullmatch(r"(19|20)\d{2}\s*[-–/]\s*(19|20)?\d{2}", value) or re.fullmatch(
        r"\d{1,2}[./]\d{1,2}[./]\d{2,4}", value
    ):
        return None  # a year range or a date
    return value


_KIND_WORDS = {w.lower() for labels in LABELS.values() for w in labels.values()} | {
    "tel",
    "tel.",
    "tél",
    "tfno",
    "telf",
    "tlf",
    "phone",
    "telephone",
    "telefonnummer",
    "email",
    "e-mail",
    "mail",
    "call",
    "call us",
    "fon",
    "telefon",
    "mailto",
    "whatsapp",
    # a call button's words: "전화하기" is no name for the number
    "call now",
    "call us now",
    "jetzt anrufen",
    "anrufen",
    "appeler",
    "llamar",
    "llámanos",
    "chiama",
    "ligar",
    "bellen",
    "ara",
    "hemen ara",
    "zadzwoń",
    "zadzwoń teraz",
    "전화",
    "전화하기",
    "전화걸기",
    "전화 문의",
    "대표번호",
    "電話",
    "お電話",
    "電話番号",
    "电话",
    "ｔｅｌ",
}


_LEADING_INTO = {
    "à",
    "a",
    "at",
    "to",
    "an",
    "unter",
    "under",
    "per",
    "via",
    "en",
    "al",
    "op",
    "naar",
    "para",
    "pour",
    "um",
}


# An address written in two <span>s reads "info@ example.com" once joined with a space.
_SPLIT_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]++\s*@\s*[\w-]+(?:\s*\.\s*[\w-]+)+")


def _short_label(text: str) -> str:
    """A label as people write one: no number, no address, no bare kind word."""
    label = _PHONE.sub(" ", _SPLIT_EMAIL.sub(" ", (text or "").replace("\u200b", "")))
    label = " ".join(label.split()).strip(" :|·-–,;()：【】■●")
    if label.count("(") > label.count(")"):
        label += ")"  # "Komórka (Paweł)", its bracket stripped with the colon after it
    # "お電話でのお問い合わせは、谷中本店": the name after the sentence
    label = re.split(r"[、，。]", label)[-1].strip()
    if not label or len(label) > MAX_LABEL_CHARS or sum(ch.isdigit() for ch in label) > 2:
        return ""
    if not any(ch.isalpha() for ch in label):
        return ""  # "📞", "☎", "→": no word a caller could be told
    word = label.lower().strip(" .:")
    if word.split()[-1] in _LEADING_INTO:
        return ""  # the start of a sentence: "Ou écrivez-nous à", "Schreiben Sie uns an"
    return "" if word in _KIND_WORDS or (word.endswith("s") and word[:-1] in _KIND_WORDS) else label  # "emails"


def _bracketed(line: str) -> str:
    """The name a line starts with in brackets: "[강남점] 서울특별시 … | TEL 02-545-7718"."""
    match = re.match(rf"^\W*?{_BRACKETED}", line)
    return _short_label(match.group(1)) if match else ""


def _label_near(tag) -> str:
    """What the link says it is ("Reception", "WhatsApp"), not the number again: its
    own words, else the words just before it ("Reception: <a>…</a>")."""
    for text in (tag.get("aria-label"), tag.get("title"), tag.get_text(" ", strip=True)):
        label = _short_label(text)
        if label:
            return label
    parent = tag.parent
    own = tag.get_text(" ", strip=True)
    if own and not _PHONE.search(own) and not _EMAIL.search(own):
        return ""  # a link in words ("answering <a>emails</a>"): the words before it are a sentence, no label
    if parent is not None and own:
        text = parent.get_text("\n", strip=True)
        if own not in text:  # the link's text in spans ("<span>+38 (032)</span> <span>245-17-83</span>"):
            return ""  # else the words after the link were taken for its label ("Telegram")
        pieces = [p for p in re.split(r"[\n|·•]", text.split(own)[0]) if p.strip()]
        return _short_label(pieces[-1]) if pieces else ""
    return ""


_BLOCKS = {"p", "div", "li", "dd", "dt", "td", "th", "tr", "address", "section", "article", "footer", "header"}
_SECTIONS = ["footer", "header", "nav", "aside", "main", "article", "section", "body"]
_HEADINGS = re.compile(r"^h[1-6]$")


def _for_other_party(tag) -> bool:
    """A link under someone else's name: in its paragraph after "Webdesign:" or "hosted
    by", or under a heading naming that role in the same part of the page."""
    block = tag.find_parent(list(_BLOCKS))
    if block is not None:
        text: list[str] = []
        for node in block.descendants:
            if node is tag:
                break
            if getattr(node, "name", None) in _BLOCKS:
                text = []  # a paragraph inside the block starts
            elif getattr(node, "name", None) == "br":
                text.append("\n")
            elif isinstance(node, str):
                text.append(node)
        if any(other_party(_clean(line)) for line in "".join(text).split("\n")):
            return True
    heading = tag.find_previous(_HEADINGS)
    return bool(
        heading is not None
        and _OTHER_HEADING.match(heading.get_text(" ", strip=True))
        and heading.find_parent(_SECTIONS) is tag.find_parent(_SECTIONS)
    )


def _from_links(anchors, url: str) -> list[Fact]:
    facts: list[Fact] = []
    for a in anchors:
        href = (a.get("href") or "").strip()
        lower = href.lower()
        if (lower.startswith(("tel:", "mailto:")) or "wa.me/" in lower) and _for_other_party(a):
            continue
        if lower.startswith("tel:"):
            value = _plausible_phone(unquote(href[4:]))
            if value:
                facts.append(Fact("phone", _as_written(a, value), _label_near(a), url))
        elif lower.startswith("mailto:"):
            value = unquote(href[7:].split("?")[0]).strip()
            if _EMAIL.fullmatch(value):
                facts.append(Fact("email", value, _label_near(a), url))
        elif "wa.me/" in lower or "whatsapp.com/send" in lower or lower.startswith("whatsapp:"):
            parts = urlsplit(href)
            number = parse_qs(parts.query).get("phone", [""])[0] or parts.path.rsplit("/", 1)[-1]
            digits = re.sub(r"\D", "", number)
            if 7 <= len(digits) <= 15:
                facts.append(Fact("whatsapp", _as_written(a, f"+{digits}"), "WhatsApp", url))
        elif service := _chat_service(href):
            facts.append(Fact("chat", href.rstrip("/"), service, url))
        elif lower.startswith(("http://", "https://")) and a.get_text(" ", strip=True).casefold() in _CHAT_WORDS:
            facts.append(Fact("chat", href.rstrip("/"), "", url))  # its own chat: "<a href=chat.x-hain.de>Chat</a>"
        elif lower.startswith(("http://", "https://", "/")) and _BOOKING_WORDS.search(a.get_text(" ", strip=True)):
            text = _clean(a.get_text(" ", strip=True), MAX_LABEL_CHARS)
            if len(text.split()) <= 5 and not news_page(urljoin(url, href)):
                facts.append(Fact("booking", urljoin(url, href), text, url))  # a link to send a caller
    return facts


def _as_written(a, value: str) -> str:
    """A tel: or wa.me link's number as its text writes it when that is the same number
    ("+44 1736 555 0199", not "+4417365550199"; "WhatsApp: (41) 99812-3344" for
    wa.me/5541998123344; "03-5281947" for tel:+97235281947): the text's digits without
    the trunk "0" a local form starts with end the link's, as a local form leaves out
    the country code."""
    text = a.get_text(" ", strip=True)
    match = _PHONE.search(text) if re.search(r"[^\W\d_]", text) else None  # "Reception: +30 22850 12345"
    shown = _plausible_phone(match.group(1) if match else text)
    if shown and shown.count("(") != shown.count(")"):
        shown = shown.strip("()")  # "(800-273-8439" of "Call (800-273-8439)"
    written, dialled = re.sub(r"\D", "", shown or ""), re.sub(r"\D", "", value)
    national = written.lstrip("0")  # the trunk "0" of a local form, the country code before it in the link
    local = len(national) >= 8 and dialled.endswith(national) and 1 <= len(dialled) - len(national) <= 3
    if shown and (written[-9:] == dialled[-9:] or local and written.startswith("0")):
        return shown
    return value


# A news post, a blog article or their listing, by its address: a folder named for news,
# or a year's and month's (WordPress's dated permalinks, "/2019/11/05/…"). A post about
# booking ("네이버 예약 오픈 안내", "Online booking now open") is news, not a way to book. *ours*
_NEWS_PATH = re.compile(
    r"/(?:news|blog|aktuelles|neuigkeiten|actualites|actualités|noticias|novedades|notizie|nieuws|"
    r"nyheder|nyheter|aktualnosci|aktualności|aktuality|novinky|vijesti|akhbar|اخبار|أخبار|новини|новости|"
    r"noticies|notícies|novetats|obvestila|aktualno|uudised|naujienos|jaunumi|haberler|duyurular|hirek|hírek|uutiset|ajankohtaista|tin-tuc|tintuc|berita|novyny|novini|novosti|공지|공지사항|소식)(?:[/._-]|$)"
    # "/nea-smyrni/" is a place, "/notice-of-privacy-practices/" a policy; "/menu/2025/" no post
    r"|/(?:nea|νέα|notice|notices|novice)(?:/|\.html?$|$)|/bbs/board|/20\d\d/(?:0[1-9]|1[0-2])/",
    re.IGNORECASE,
)


@lru_cache(maxsize=16384)
def news_page(url: str) -> bool:
    """Whether `url` is a news post's or a blog article's, or their listing's."""
    return bool(_NEWS_PATH.search(unquote(urlsplit(url).path)))


def _chat_service(href: str) -> str | None:
    """The messenger a link opens a chat in ("https://t.me/gulumse" -> "Telegram"), or
    None; a share button ("t.me/share/url?…") opens none with the business."""
    parts = urlsplit(href)
    host = (parts.hostname or "").lower().removeprefix("www.")
    if parts.scheme not in ("http", "https") or re.match(r"/(share|r/msg|dialog)\b", parts.path, re.IGNORECASE):
        return None
    return _CHAT_HOSTS.get(host) if parts.path.strip("/") or parts.fragment else None


def _schema_hours(spec) -> list[str]:
    """One line per set of days, each of its ranges on it: "Tuesday–Thursday 12:30–16:30,
    20:00–23:30", not a line for lunch and another for dinner."""
    specs = spec if isinstance(spec, list) else [spec]
    ranges: dict[str, list[str]] = {}
    for item in specs:
        if not isinstance(item, dict):
            continue
        days = item.get("dayOfWeek") or []
        days = [days] if isinstance(days, str) else days
        names = [str(d).rsplit("/", 1)[-1] for d in days if d]
        opens, closes = _clean(str(item.get("opens") or "")), _clean(str(item.get("closes") or ""))
        if not names or not (opens or closes):
            continue
        found = ranges.setdefault(_day_span(names), [])
        if f"{opens[:5]}–{closes[:5]}" not in found:
            found.append(f"{opens[:5]}–{closes[:5]}")
    return [f"{days} {', '.join(times)}" for days, times in ranges.items()]


def weekday(text: str) -> int:
    """The weekday (0 = Monday) an hours line starts with, in any of the card's
    languages; 7 when it names none. "Daily" and "Mo–Fr" start the week."""
    folded = text.casefold()
    every = min((folded.find(phrase) for phrase in _EVERY_DAY if " " in phrase and phrase in folded), default=-1)
    for match in _WORD.finditer(folded):
        word = match.group(0)
        if 0 <= every < match.start():
            return 0  # "aberta todos os dias …, exceto ao domingo"
        if word in _WEEKDAY_OF:
            return _WEEKDAY_OF[word]
        if word in _EVERY_DAY:
            return 0
    for i, names in enumerate(_WEEK):  # Korean day names are written without a space before 요일's suffixes
        if names[-1] in text:
            return i
    mentions = _day_mentions(text)  # Japanese and Chinese: "月曜日", "星期一"
    return mentions[0][2] if mentions else 7


def _day_span(names: list[str]) -> str:
    order = [d for d in _SCHEMA_DAYS if d in names]
    if len(order) >= 3 and [_SCHEMA_DAYS.index(d) for d in order] == list(
        range(_SCHEMA_DAYS.index(order[0]), _SCHEMA_DAYS.index(order[-1]) + 1)
    ):
        return f"{order[0]}–{order[-1]}"
    return ", ".join(order or names)


def _opening_hours_text(value: str) -> str:
    """schema.org's "Mo-Fr 09:00-18:00" as "Monday–Friday 09:00–18:00"."""

    def day(m: re.Match) -> str:
        return _SHORT_DAYS.get(m.group(0), m.group(0))

    text = re.sub(r"\b(Mo|Tu|We|Th|Fr|Sa|Su)\b", day, _clean(value))
    return text.replace("-", "–")


def _address_text(value) -> str:
    if isinstance(value, str):  # "2418 SE Division St\nPortland, OR, 97202": its lines are its parts
        text = ", ".join(_clean(line) for line in value.splitlines() if line.strip())
        return re.sub(r",(?:\s*,)+", ",", text)  # "London, , EC4N 4SJ": a part left empty
    if isinstance(value, list):
        return _address_text(value[0]) if value else ""
    if not isinstance(value, dict):
        return ""
    street = _clean(str(value.get("streetAddress") or ""))
    place = " ".join(_clean(str(value.get(k) or "")) for k in ("postalCode", "addressLocality") if value.get(k))
    country = value.get("addressCountry")
    country = country.get("name") if isinstance(country, dict) else country
    parts = [street, place, _clean(str(value.get("addressRegion") or "")), _clean(str(country or ""))]
    return ", ".join(p for p in parts if p)


def _from_schema(node: dict, url: str, facts: list[Fact]) -> None:
    name = _clean(str(node.get("name") or ""), MAX_LABEL_CHARS) if isinstance(node.get("name"), str) else ""
    for phone in node.get("telephone") if isinstance(node.get("telephone"), list) else [node.get("telephone")]:
        value = _plausible_phone(str(phone or ""))
        if value:
            facts.append(Fact("phone", value, name, url, structured=True))
    email = node.get("email")
    if isinstance(email, str) and _EMAIL.fullmatch(email.removeprefix("mailto:").strip()):
        facts.append(Fact("email", email.removeprefix("mailto:").strip(), name, url, structured=True))
    address = _address_text(node.get("address"))
    if address and len(address) > 8:
        facts.append(Fact("address", address, name, url, structured=True))
    hours = node.get("openingHours")
    for line in [hours] if isinstance(hours, str) else hours if isinstance(hours, list) else []:
        if isinstance(line, str) and re.search(r"\w", line):  # Squarespace writes ", , , , , , "
            facts.append(Fact("hours", _opening_hours_text(line), name, url, structured=True))
    for line in _schema_hours(node.get("openingHoursSpecification")):
        facts.append(Fact("hours", line, name, url, structured=True))
    points = node.get("contactPoint")
    for point in points if isinstance(points, list) else [points]:
        if isinstance(point, dict):
            label = _clean(str(point.get("contactType") or point.get("name") or ""), MAX_LABEL_CHARS)
            _from_schema({**point, "name": label}, url, facts)


def _from_json_ld(scripts, url: str) -> list[Fact]:
    facts: list[Fact] = []

    def walk(node, depth: int = 0) -> None:
        if depth > 8:
            return
        if isinstance(node, list):
            for item in node[:50]:
                walk(item, depth + 1)
        elif isinstance(node, dict):
            kinds = node.get("@type")
            kinds = kinds if isinstance(kinds, list) else [kinds]
            if not any(str(k).rsplit("/", 1)[-1] in ("Person", "Product", "Offer", "Event") for k in kinds):
                _from_schema(node, url, facts)
            for key in (
                "@graph",
                "mainEntity",
                "publisher",
                "author",
                "provider",
                "organizer",
                "location",
                "department",
            ):
                walk(node.get(key), depth + 1)

    for script in scripts:
        if (script.get("type") or "").strip().lower() != "application/ld+json":
            continue
        try:
            walk(json.loads(script.get_text() or "null"))
        except (ValueError, RecursionError):
            continue
    return facts


def _from_microdata(tags, url: str) -> list[Fact]:
    facts: list[Fact] = []
    for tag in tags:
        prop = (tag.get("itemprop") or "").strip()
        if prop not in ("telephone", "email", "openingHours", "address"):
            continue
        if prop == "address" and tag.get("itemscope") is not None:
            parts = {}
            for part in tag.find_all(attrs={"itemprop": True}):
                parts[part["itemprop"]] = part.get("content") or part.get_text(" ", strip=True)
            value = _address_text(parts)
        else:
            value = tag.get("content") or tag.get("datetime") or tag.get_text(" ", strip=True)
        kind = {"telephone": "phone", "openingHours": "hours"}.get(prop, prop)
        if kind == "phone":
            value = _plausible_phone(value) or ""
        elif kind == "hours":
            value = _opening_hours_text(value)
        elif kind == "email":
            value = value.removeprefix("mailto:").strip()
            value = value if _EMAIL.fullmatch(value) else ""
        if value:
            facts.append(Fact(kind, _clean(value), "", url, structured=True))
    return facts


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def _opening_cell(cell: str) -> bool:
    """A table cell giving a day's hours: times, closed, by appointment, or nothing (not
    a training plan's "Rest" or "5 miles")."""
    return not cell.strip(" -–—") or _times(cell) or bool(_CLOSED.search(cell) or _BY_APPOINTMENT.search(cell))


def _days_in_columns(text: str) -> str:
    """`text` with each row of a Markdown table of hours read with its header's cells,
    when each of the row's cells gives hours (_opening_cell). Days as columns ("|  | 平日
    | 土・日・祝日 |", two or more naming days): "| 店舗 | 平日 10:00～18:00 | 土・日・祝日
    9:30～18:00 |", where the row's times alone named no day, and such a row was read as
    no hours at all. Places as columns ("|  | Kahvila | Yleinen sauna |") beside rows
    naming days: "| Ti–To | Kahvila 11–20 | Yleinen sauna 16–21 |", where the times did
    not say whose they were. *ours*"""
    lines = text.splitlines()
    header: list[str] | None = None  # the header's cells while in such a table
    days_across = False  # the header names days (else: places, and the rows name days)
    for i, raw in enumerate(lines):
        if not raw.lstrip().startswith("|"):
            header = None
        elif i + 1 < len(lines) and _TABLE_RULE.match(lines[i + 1]) and not _TABLE_RULE.match(raw):
            cells = _cells(raw)
            named = [bool(days_of(cell)) and not _DIGIT.search(cell) for cell in cells[1:]]
            days_across = sum(named) >= 2
            places = len(cells) >= 3 and not any(named) and all(c and len(c.split()) <= 4 for c in cells[1:])
            header = cells if days_across or places else None
        elif (
            header is not None
            and not _TABLE_RULE.match(raw)
            and len(cells := _cells(raw)) == len(header)
            and (days_across or bool(days_of(cells[0])))
            and all(_opening_cell(cell) for cell in cells[1:])
            and any(_times(cell) for cell in cells[1:])  # "| Lunes | Cerrado | |" is closed all day
        ):
            said = [f"{name} {cell}" if name and cell else cell for name, cell in zip(header[1:], cells[1:])]
            lines[i] = "| " + " | ".join([cells[0], *said]) + " |"
    return "\n".join(lines)


def _from_text(text: str, url: str, chrome: bool = False) -> list[Fact]:
    """Labelled lines: a phone word before a number, an hours word or day name before a
    time range, an address word, or a street line followed by a postcode line. `chrome`:
    the text is the page's header and footer."""
    facts: list[Fact] = []
    text = _days_in_columns(text) if "|" in text else text
    # A table row reads as its cells: "| Cuma | 09:00 – 19:00 |" -> "Cuma 09:00 – 19:00".
    lines: list[str] = []
    section: list[str] = []  # the heading each line stands under
    subsection: list[str] = []  # the same, when it is no page title (H2 and below)
    heading = ""
    level = 0  # its level: "## Ταβέρνα" 2
    bold_name, named_at = "", 0  # a bold name on a line of its own ("**Doggy Daycare**"), the line it names first
    others = False  # the section is about someone else (other_party)
    other = False  # so is the paragraph, from this line on
    names: list[str] = []  # the name the paragraph starts with: "■根津店（お持ち帰り専門）", "[강남점]"
    name = ""
    for raw in text.splitlines():
        line = _clean(_LIST_MARK.sub("", re.sub(r"[*#|]", " ", raw)))
        if not line:
            other, name = False, ""  # a paragraph ends
            continue
        if (marked := _BLOCK_NAME.match(line)) and not _DIGIT.search(line):  # a name, not "● Open 9–5"
            name = _short_label(marked.group(1) or marked.group(2))
        if _TABLE_RULE.match(raw):
            continue
        if raw.lstrip().startswith("#") or _LABEL_LINE.match(raw):
            others = bool(_OTHER_HEADING.match(line.rstrip(": ")))
        if raw.lstrip().startswith("#"):
            heading, level, bold_name = line, len(raw.lstrip()) - len(raw.lstrip().lstrip("#")), ""
        elif _BOLD_NAME.match(raw) and not _DIGIT.search(line):
            # whose hours follow, unless it says only that they are hours, or which days
            bold_name = "" if _HOURS_WORDS.search(line) or _only_days(line) else line.rstrip(": ")
            named_at = len(lines)
        other = other or other_party(line)
        if others or other:
            continue  # the web agency's number, the host's address
        if _DEFINITION.match(raw) and lines:  # a definition reads with its term: "Saturday 8:00 am – 2:00 pm"
            lines[-1] = _clean(f"{lines[-1]} {line.lstrip(': ')}")
            continue
        if lines and _TIME_RANGE.match(line) and not _day_mentions(line) and _only_days(lines[-1]):
            lines[-1] = f"{lines[-1]} {line}"  # "Monday – Friday" and on the next line "7:00 am – 6:30 pm"
            continue
        lines.append(line)
        section.append(heading)
        near = bold_name and len(lines) - named_at <= NAMED_LINES  # it names a few lines, not the page
        subsection.append(bold_name if near else heading if level >= 2 else "")
        names.append(name)
    # Unlabelled addresses on a homepage may be anyone's (an estate agent's listings);
    # the business's own is in the footer, on every page.
    home = not chrome and _homepage(urlsplit(url).path)
    hours_under: list[tuple[int, str]] = []  # each hours line's place in `facts`, its heading
    for i, line in enumerate(lines):
        if len(line) > 300:
            continue
        if _PHONE_WORDS.search(line):
            before = 0
            for match in _PHONE.finditer(line):
                value = _plausible_phone(match.group(1))
                said = line[before : match.start()]  # what is said of this number: "대표전화 : … 팩스 : 02-777-4183"
                first, before = before == 0, match.end()
                fax = _FAX.search(said) or (not _PHONE_WORDS.search(said) and _FAX.search(line[: match.start()]))
                # after another number, only the last few words name it: "· Mobil: …", "| TEL …"
                last = re.split(r"[|·•;,]", said)[-1]
                named = said if first else last
                registry = _REGISTRY.search(last) and not _PHONE_WORDS.search(named)
                if value and not (fax and not _PHONE_WORDS.search(said)) and not registry:  # "Tel./Fax" is a phone
                    label = (
                        (_short_label(named) if first or len(named.split()) <= 3 else "")
                        or _bracketed(line)
                        or names[i]
                    )
                    facts.append(Fact("phone", value, label, url))
        elif _PHONE.fullmatch(line) and (_phone_heading(section[i]) or (i > 0 and _phone_heading(lines[i - 1]))):
            value = _plausible_phone(line)  # the number on its own line, under "## Telefon" or after "Phone"
            if value:
                facts.append(Fact("phone", value, "", url))
        for match in _EMAIL.finditer(line):
            facts.append(Fact("email", match.group(1).rstrip("."), "", url))
        for match in _CHAT_ID.finditer(line):
            facts.append(Fact("chat", match.group(2).rstrip("."), _CHAT_NAMES[match.group(1).lower()], url))
        if _times(line):
            sentences = _SENTENCE_END.split(line)
            sentence = next((part for part in sentences if _times(part)), line)
            # a day, or a word for opening in a short line ("Hours: 9am-5pm", "Open 9-5"; not
            # "In Listing 9-3, we try to open a file.")
            said = _names_a_day(sentence) or (_HOURS_WORDS.search(sentence) and len(sentence.split()) <= 7)
            once = _YEAR.search(_TIME_RANGE.sub("", sentence)) or (
                _TODAY.search(sentence) and _HOURS_WORDS.search(sentence)
            )
            if said and not once and _regular_times(sentence):
                label = _phone_hours_label(sentence, section[i]) or names[i]  # "■根津店": another shop's hours
                facts.append(Fact("hours", _clean(sentence, MAX_VALUE_CHARS), label, url))
                hours_under.append((len(facts) - 1, subsection[i]))
            for part in sentences:  # "… to 4 pm. We are closed on Sundays."
                if part != sentence and _CLOSED.search(part) and _days_without_times(part, ""):
                    facts.append(Fact("hours", _clean(part, MAX_VALUE_CHARS), "", url))
        elif _days_without_times(line, section[i]):
            facts.append(Fact("hours", line, _phone_hours_label(line, section[i]), url))
            hours_under.append((len(facts) - 1, subsection[i]))
        if _ADDRESS_WORDS.match(line):
            rest = _ADDRESS_WORDS.sub("", line).strip()
            if len(rest) < 10 and i + 1 < len(lines):
                rest = f"{rest} {lines[i + 1]}".strip()
            if any(ch.isdigit() for ch in rest):
                match = _address_match(rest)  # the address, not the sentence after it; what comes before stays
                facts.append(Fact("address", _clean(rest[: match.end()] if match else rest), "", url))
        elif (
            (_POSTCODE_LINE.match(line) or _CEP_LINE.match(line))
            and not _us_street_line(line)
            and i > 0
            and _STREET_LINE.match(lines[i - 1])
            and len(lines[i - 1]) <= 60
        ):
            street = lines[i - 1]
            if not _PHONE_WORDS.search(street) and not _EMAIL.search(street):
                facts.append(Fact("address", f"{street}, {line}", "", url))
        elif not home and (found := one_line_address(line)):
            facts.append(Fact("address", found, "", url))  # a homepage's own: in its footer, on every page
        elif not home and (match := _JP_ADDRESS.match(line)):
            postcode = lines[i - 1] if i > 0 and _JP_POSTCODE.match(lines[i - 1]) else ""
            facts.append(Fact("address", _clean(f"{postcode} {match.group(0)}"), names[i], url))
    return _hours_named_by_headings(facts, hours_under)


def _hours_named_by_headings(facts: list[Fact], hours_under: list[tuple[int, str]]) -> list[Fact]:
    """A page giving hours under two or more headings ("Ρεσεψιόν (Απρίλιος – Οκτώβριος)",
    "Ταβέρνα (Μάιος – Οκτώβριος)", "Winter hours") says whose or when each week is: each
    unlabelled line is labelled with its heading, so the card's weeks stay told apart."""
    headings = {heading for _, heading in hours_under if heading}
    if len(headings) < 2:
        return facts
    for index, heading in hours_under:
        if _only_days(heading):
            continue  # "#### Monday" over "7:00AM - 5:00PM": the line names its day itself
        if len(heading) > MAX_LABEL_CHARS:  # "Χειμερινό ωράριο γραφείου (Νοέμβριος – Μάρτιος)": its name
            heading = re.sub(r"\s*\([^)]*\)", "", heading)
        said = _PHONE_HOURS.search(heading) and _PHONE_HOURS.search(facts[index].value)  # its words say it
        if heading and not facts[index].label and len(heading) <= MAX_LABEL_CHARS and not said:
            facts[index] = replace(facts[index], label=heading)
    return facts


def _us_street_line(line: str) -> bool:
    """ "1971 University Blvd.", a number and a street, not a postcode and a place; but
    "9000 St. Gallen", "9561 Ter Apel" are places."""
    match = re.match(_US_STREET, line, re.IGNORECASE)
    return bool(match and len(match.group(0).split()) >= 3)


def one_line_address(text: str) -> str | None:
    """A postal address written on one line without a label, as footers do: "2210 NW 7th
    St, Miami, FL 33125", "12 Quay Street, Penzance TR18 4AB", "Schillerstraße 12 ·
    79098 Freiburg", "14 rue des Tanneurs, 67000 Strasbourg". A street and a number
    before a postcode and a capitalised place (a US state and ZIP code, a UK postcode),
    so "Version 2, 2024 Edition" is none."""
    match = _address_match(text)
    if match is None:
        return None
    if match.re is _EU_ADDRESS:
        return _clean(f"{match.group(1).strip()}, {match.group(2)} {match.group(3)}")
    return _clean(match.group(1))


def _address_match(text: str) -> re.Match | None:
    match = _US_ADDRESS.search(text) or _UK_ADDRESS.search(text)
    if match:
        return match
    if not _EU_POSTCODE.search(text):
        return None  # _EU_ADDRESS's postcode: searching for the rest without one is slow
    match = _EU_ADDRESS.search(text)
    return match if match and match.group(3)[0].isupper() else None


def mentions_phone(text: str) -> bool:
    """A phone number anywhere in `text` (7-15 digits; not a date, a span of years or of
    hours: "Open 10.00 - 18.00", "24.12.2024 - 02.01.2025", "2024-03-01"), but on a line
    about someone else: a privacy page's "Situs ini dibuat dan dikelola oleh Pradnya Web
    Studio … hubungi 0878-6112-0934" went first for "what's your office number?"."""
    return any(
        _plausible_phone(m) and not _NOT_A_PHONE.search(m) for piece in _own_pieces(text) for m in _PHONE.findall(piece)
    )


# a date written with blanks too ("19. 1. 2026", as Slovak and Czech news posts sign theirs)
_NOT_A_PHONE = re.compile(
    r"^\d{4}-\d{2}-\d{2}|\d{1,2}\.\d{1,2}\.\d{2,4}|^\d{1,2}\.\s\d{1,2}\.\s(?:\d{2}|\d{4})$|^\d{1,2}[.:]\d{2}\s*[-–]\s*\d{1,2}[.:]\d{2}"
)


def mentions_email(text: str) -> bool:
    return any(_EMAIL.search(piece) for piece in _own_pieces(text))


_CHAT_LINK = re.compile(
    r"(?:https?://)?(?:" + "|".join(re.escape(host) for host in _CHAT_HOSTS) + r")/\S", re.IGNORECASE
)


# Also "加LINE：@shop", "LINE官方帳號：@shop", "微信号：shop", "ไลน์: @shop", and an ID of digits
# ("Line ID: 0812345678": many Thai LINE IDs are phone numbers).
_CHAT_MENTION = re.compile(
    r"(?:(?-i:LINE|Line)|ไลน์|微信|kakao ?talk|카카오톡|카톡|telegram|viber|wechat)"
    r"(?:\s*(?:id|아이디|官方帳號|官方账号|帳號|账号|号|號))?\s*[:：]\s*@?[\w.-]{3,32}",
    re.IGNORECASE,
)


def mentions_chat(text: str) -> bool:
    """A messenger's link or ID ("https://line.me/R/ti/p/@shop", "LINE: @shop",
    "KakaoTalk ID: clinic") in `text`, but someone else's."""
    return any(
        _CHAT_LINK.search(piece) or _CHAT_ID.search(piece) or _CHAT_MENTION.search(piece) for piece in _own_pieces(text)
    )


_PIECES = re.compile(r"\s[·•|]\s")  # a footer's "© … · Tel. … · Powered by WordPress"


# A privacy page's section on those it hands data to: the web agency, the booking system,
# the payment provider, each with its number ("4. Получатели на данни", "三、委外處理",
# "Obdelovalci in zunanji izvajalci"). *ours*
_OTHERS_SECTION = re.compile(
    r"\b(?:third[- ]part(?:y|ies)|(?:sub-?)?processors?|recipients?|service providers|external (?:service )?providers|"
    r"auftragsverarbeit\w*|empfänger\w*|dritte[nr]?|encargados? del tratamiento|destinatarios?|terceros|"
    r"sous-traitants?|destinataires?|responsabil[ei] (?:esterni|del trattamento)|destinatari|"
    r"verwerkers?|ontvangers?|derden|operadores|destinatários|terceiros|encarregats? del tractament|destinataris|tercers|"
    r"podmiot\w* przetwarzając\w*|odbiorc\w*|zpracovatel\w*|příjemc\w*|sprostredkovate\w*|príjemc\w*|"
    r"adatfeldolgozó\w*|címzett\w*|käsittelijä\w*|vastaanottaj\w*|personuppgiftsbiträde\w*|mottagare|databehandler\w*|"
    r"tredjepart\w*|mottakere|üçüncü (?:taraf|kişi)\w*|veri işleyen\w*|aktarıl\w*|bên thứ ba|pihak ketiga|"
    r"получател\w*|обработващ\w*|трет\w* (?:лиц|страни)\w*|отримувач\w*|обробник\w*|третіх осіб|"
    r"obdelovalc\w*|zunanji izvajalci|obrađivač\w*|primatelj\w*|επεξεργαστ\w*|αποδέκτ\w*|τρίτους|τρίτα μέρη|"
    r"vastuvõtja\w*|volitatud töötleja\w*|kolmand\w* isik\w*|gavėj\w*|duomenų tvarkytoj\w*|trečiosi\w* šal\w*|"
    r"saņēmēj\w*|apstrādātāj\w*|trešā\w* person\w*)\b"
    r"|委外|受託|第三方|第三者|委託先|제3자|위탁|บุคคลภายนอก|ผู้ประมวลผล|طرف سوم|اشخاص ثالث|أطراف ثالثة|צדדים שלישיים|מעבדי מידע",
    re.IGNORECASE,
)
# ... on a page about privacy, which its heading path names ("Política de privacidad > …")
_PRIVACY = re.compile(
    r"privacy|privac|datenschutz|protección de datos|confidentialité|données personnelles|riservatezza|dati personali|"
    r"privacidade|proteção de dados|privacybeleid|persoonsgegevens|prywatnoś|dane osobowe|osobních údajů|osobných údajov|"
    r"adatvédelm|adatkezel|tietosuoj|integritet|personuppgift|persondata|personvern|gizlilik|kişisel veri|kvkk|"
    r"quyền riêng tư|bảo mật|privasi|конфиденциальн|персональн|поверителност|лични данни|конфіденційн|privatnost|"
    r"osobni podaci|osobnih podataka|zasebnost|osebnih podatkov|απόρρητ|προσωπικ\w* δεδομέν|privaatsus|andmekaitse|"
    r"isikuandme|privatumo|asmens duomen|privātum|personas dat|privacitat|dades personals|"
    r"隱私|隐私|個資|個人資料|個人情報|プライバシー|개인정보|ความเป็นส่วนตัว|ข้อมูลส่วนบุคคล|حریم خصوصی|الخصوصية|פרטיות",
    re.IGNORECASE,
)


def _own_pieces(text: str) -> Iterator[str]:
    """The lines of `text`, a footer's line in its pieces, but those about someone else,
    and none of a privacy page's passage whose heading (its first line, "Privacy policy >
    4. Recipients") names those the business hands data to."""
    lines = text.splitlines()
    if lines and _OTHERS_SECTION.search(lines[0].rsplit(" > ", 1)[-1]) and _PRIVACY.search(lines[0]):
        return iter(())
    return (piece for line in lines for piece in _PIECES.split(line) if not other_party(piece))


def mentions_address(text: str) -> bool:
    """A postal address anywhere in `text`: a street with its postcode and place, a
    postcode line ("3511 ZL Utrecht", "〒110-0001"), or a line with a number labelled as
    one ("주소: …", "**Address:** …")."""
    for line in text.replace("**", "").splitlines():
        line = line.strip(" -*|")
        if not _DIGIT.search(line):
            continue  # every form has a number ("Find us: on Instagram" is none)
        label = line.split(":", 1)[0]  # "Address / Dirección: …", as the card labels in two languages
        if any(_ADDRESS_WORDS.match(f"{part}:") for part in label.split(" / ")):
            return True
        postcode = _POSTCODE_LINE.match(line) or _CEP_LINE.match(line) or _JP_POSTCODE.match(line)
        if postcode or _address_match(line) or _JP_ADDRESS.search(line):
            return True
    return False


def _times(text: str) -> bool:
    return bool(_TIME_RANGE.search(text) or _TIME_FROM.search(text))


def _regular_times(sentence: str) -> bool:
    """A time range, or an opening time said of a day or of opening ("Every Monday from
    6pm", "Geöffnet ab 18 Uhr"); not "Kids eat free every Sunday from 5pm"."""
    if _TIME_RANGE.search(sentence):
        return True
    words = _WORD.findall(sentence.casefold())
    while words and words[0] in _EVERY:
        words = words[1:]
    return bool(words and (words[0] in _WEEKDAY_OF or _HOURS_WORDS.search(sentence)))


def _phone_hours_label(line: str, heading: str) -> str:
    """The label of hours to call: its heading when only the heading says so ("Mo–Do
    8–12 Uhr" under "Telefonische Erreichbarkeit"), else the line's own words do."""
    if _PHONE_HOURS.search(line):
        return ""
    return heading if heading != line and len(heading) <= MAX_LABEL_CHARS and _PHONE_HOURS.search(heading) else ""


def phone_hours(fact: Fact) -> bool:
    """An hours line saying when to call, not when the business is open."""
    return bool(_PHONE_HOURS.search(fact.value) or _PHONE_HOURS.search(fact.label))


def _leading_days(line: str) -> bool:
    """A line starting with short day names then closed or by appointment: "Sa, So
    geschlossen", "Fr nach Vereinbarung", "Sa/So: Ruhetag"."""
    mentions = _day_mentions(line)
    if not mentions or mentions[0][0] != 0:
        return False
    end = mentions[0][1]
    for start, stop, _ in mentions[1:]:
        if not re.fullmatch(r"\s*(?:[,/&+–-]|und|and|et|y|e|en|ve)?\s*", line[end:start], re.IGNORECASE):
            break
        end = stop
    rest = line[end:].strip(" :.-–")
    return bool(_CLOSED.fullmatch(rest) or _BY_APPOINTMENT.fullmatch(rest))


def _only_days(line: str) -> bool:
    """A line naming days and nothing else: "Monday – Friday", "Sa, So", "Di bis Fr"."""
    mentions = _day_mentions(line)
    rest = "".join(line[end:start] for (_, end, _), (start, _, _) in zip([(0, 0, 0), *mentions], mentions))
    rest += line[mentions[-1][1] :] if mentions else line
    return bool(mentions) and bool(_BETWEEN_DAYS.fullmatch(rest))


_BETWEEN_DAYS = re.compile(r"(?:[\s.,/&+–—:-]|\b(?:and|und|bis|to|through|et|au|y|a|al|e|en|tot|ve|do|až)\b)*", re.I)


def _few_other_words(line: str) -> bool:
    """A line that says days and closed and little else: "Lunes: cerrado", "Fermé le
    dimanche et le lundi", "Closed on Sundays and public holidays"; not "Closed this
    Saturday for a private event" (once, not every week)."""
    rest = _FULL_DAY.sub(" ", _CLOSED.sub(" ", _BY_APPOINTMENT.sub(" ", re.sub(r"\([^)]*\)", " ", line))))
    words = [w for w in _WORD.findall(rest.casefold()) if len(w) > 3 and w not in _WEEKDAY_OF and w not in _HOLIDAYS]
    return len(words) <= 1


def _names_a_day(text: str) -> bool:
    """A day named: in full or short (_DAY), in a short week, or in the forms only
    _day_mentions reads (Vietnamese, "Senin", "П'ятниця", Thai "จ.-ศ.")."""
    short = _short_days(text) or _thai_short_days(text) or _hebrew_days(text)
    return bool(_DAY.search(text) or short or _VI_RANGE.search(text) or _ID_MONDAY.search(text)) or (
        names_full_day(text)  # its _FULL_DAY names are _DAY's too; its Vietnamese and Ukrainian forms are not
    )


def names_full_day(text: str) -> bool:
    """A day named in full ("Sunday", "Sonntag", "неділю"), not a short name ("Do" is a
    German Thursday and an English question's first word)."""
    return bool(_FULL_DAY.search(text) or _UK_FRIDAY.search(text) or _VI_DAY.search(text)) or any(
        end - start > 2
        for start, end, _ in _hebrew_days(text)  # in full, not "ו׳"
    )


def _days_without_times(line: str, heading: str) -> bool:
    """ "Lunes: cerrado", or "Du mardi au samedi" under "Horaires": days with no times,
    and no date either (so every week). A short day name ("So", "Dim.") counts in a line
    of two words ("So geschlossen", "Dim. fermé") or before closed or by appointment
    ("Sa, So geschlossen", "Fr nach Vereinbarung")."""
    named = _FULL_DAY.search(line) or (len(line.split()) <= 2 and _DAY.match(line)) or _leading_days(line)
    if len(line) > 80 or not named or _DIGIT.search(line) or not _few_other_words(line):
        return False
    return bool(
        _CLOSED.search(line) or _BY_APPOINTMENT.search(line) or (heading != line and _HOURS_WORDS.search(heading))
    )


def _phone_heading(line: str) -> bool:
    return len(line) <= MAX_LABEL_CHARS and bool(_PHONE_WORDS.search(line)) and not _FAX.search(line)


def tag_facts(anchors, scripts, itemprops, url: str) -> list[Fact]:
    """Facts from a page's links, JSON-LD and microdata: read before the page is cleaned."""
    return _from_links(anchors, url) + _from_json_ld(scripts, url) + _from_microdata(itemprops, url)


def page_facts(found: list[Fact], markdown: str, chrome: str, url: str) -> tuple[Fact, ...]:
    """A page's facts: `found` by tag_facts and those its text (main content and chrome,
    as Markdown) states, each once."""
    unique: dict[str, Fact] = {}
    for fact in found + _from_text(markdown, url) + _from_text(chrome, url, chrome=True):
        unique[fact.key()] = _merge(unique.get(fact.key()), fact)
    return tuple(unique.values())


_UNWRITTEN = re.compile(r"\+?\d+")  # a number as links and structured data give it: "+420604123456"


def _merge(known: Fact | None, fact: Fact) -> Fact:
    """One fact met twice: the newer wins when its page is more contact-like (a contact
    page over a legal or about page over any other), or when it adds a label or
    structured data. It is shown as the more contact-like page states it; a label comes
    only from the page shown (an old blog post's "mail to Felix" is no label for the
    contact page's address)."""
    if known is None:
        return fact
    if not (
        _contact_rank(fact.url) > _contact_rank(known.url)
        or (fact.label and not known.label)
        or (fact.structured and not known.structured)
    ):
        return known
    shown, other = (known, fact) if _contact_rank(known.url) > _contact_rank(fact.url) else (fact, known)
    value = shown.value
    if shown.kind == "phone" and _UNWRITTEN.fullmatch(value) and not _UNWRITTEN.fullmatch(other.value):
        value = other.value  # "02-777-4182" as the page writes it, not the call button's "027774182"
    return replace(
        shown,
        value=value,
        label=shown.label or (other.label if other.url == shown.url else ""),
        structured=fact.structured or known.structured,
    )


_CONTACT_PATH = re.compile(  # "/orari/" is an hours page, "/temporario/" none; "/openinghours/" one too
    r"contact|kontakt|contacto|contatto|contatti|contato|iletisim|iletişim|getting-here|anfahrt|find-us|location|"
    r"visit|hours|opening|öffnungszeiten|oeffnungszeiten|sprechzeiten|ordinationszeiten|horario|horário|horaire|"
    r"ouverture|(?<![^\W\d_])orari|openingstijden|saatleri|access|toiawase|epikoinonia|επικοινωνία|ωράριο|"
    r"오시는|연락|영업시간|yhteystiedot|ota-yhteytta|aukioloajat|kapcsolat|elerhetoseg|elérhetőség|nyitvatartas|nyitvatartás|"
    r"lien-he|lienhe|liên-hệ|kontak|hubungi|\bon-som\b|com-arribar|horari|kje-smo|delovni-cas|lahtiolekuajad|darbo-laikas|darba-laiks|tzor-kesher|tsor-kesher|tzur-kesher|צור-קשר|צרו-קשר|יצירת-קשר|tamas-ba-ma|تماس",
    re.IGNORECASE,
)
_INDEX_FILE = re.compile(r"index\.\w+", re.IGNORECASE)
# A booking page gives the numbers to book on (a WhatsApp number, often), after the contact page's.
_BOOKING_PATH = re.compile(
    r"reserv|prenota|buchen|booking|rezervasyon|rezerwacj|narocanje|naročanje|broneeri|registreeru|pieteik|kratis|κρατήσ|예약",
    re.IGNORECASE,
)
_LEGAL_PATH = re.compile(
    r"impressum|impresszum|imprint|legal|aviso|kunye|künye|about|ueber|über|rolunk|rólunk|meista|meistä|gioi-thieu|tentang|pro-nas|o-nas|qui-som|impresum|pravno-obvestilo|(?<![^\W\d_])meist(?![^\W\d_])|rekvizitai|apie-mus|par-mums|rekviziti",
    re.IGNORECASE,
)


def _contact_rank(url: str) -> int:
    """2 on a contact page, 1 on a booking, legal or about page or a homepage ("/",
    "/de/"), 0 elsewhere: on a news post too ("/blog/holiday-hours-2024.html" says this
    year's holiday hours, not where the business is)."""
    if news_page(url):
        return 0
    path = unquote(urlsplit(url).path)  # "/%CE%B5%CF%80…/": "/επικοινωνία/"
    if _CONTACT_PATH.search(path):
        return 2
    return 1 if _BOOKING_PATH.search(path) or _LEGAL_PATH.search(path) or _homepage(path) else 0


def contact_page(url: str) -> bool:
    """A page whose address says it gives the business's contact details or hours."""
    return _contact_rank(url) == 2


def _homepage(path: str) -> bool:
    """ "/", "/index.php", or a language's folder ("/de/", "/pt-br/"); not "/pr/"."""
    segments = [s for s in path.split("/") if s]
    if segments and _INDEX_FILE.fullmatch(segments[-1]):
        segments.pop()
    return not segments or (len(segments) == 1 and path_language("/" + segments[0]) is not None)


def contact_card(pages: list[tuple[str, tuple[Fact, ...]]]) -> list[Fact]:
    """The site's facts, merged over its pages: each fact once, with the number of pages
    stating it, the page it is best read on (a contact or legal page over any other),
    structured data first, then facts the most pages state (hours: _hours_kept); at
    most MAX_PER_KIND a kind."""
    counts: Counter[str] = Counter()
    best: dict[str, Fact] = {}
    place: dict[str, int] = {}  # the earliest place among its kind on a page: links and the header come first
    for _, facts in sorted(pages, key=_reading_order):  # the same card whatever order pages were read in
        of_kind: Counter[str] = Counter()
        for fact in facts:
            key = fact.key()
            counts[key] += 1
            best[key] = _merge(best.get(key), fact)
            place[key] = min(place.get(key, of_kind[fact.kind]), of_kind[fact.kind])
            of_kind[fact.kind] += 1
    card: list[Fact] = []
    for kind in KINDS:
        found = [
            replace(f, pages=counts[k])
            for k, f in best.items()
            if f.kind == kind and _the_business(f, counts[k], len(pages))
        ]
        if kind == "hours":
            card.extend(_hours_kept(_hours_places(pages, {f.key(): f for f in found})))
        else:
            card.extend(sorted(found, key=lambda f: _card_order(f, place[f.key()]))[:MAX_PER_KIND])
    return _whatsapp_as_written(card)


def _whatsapp_as_written(card: list[Fact]) -> list[Fact]:
    """A WhatsApp number (read from a wa.me link's digits, "+905321234567") written as
    the card's phone with the same digits writes it ("+90 532 123 45 67"); only a phone
    written with its country code is the same number for sure."""
    written = {re.sub(r"\D", "", f.value): f.value for f in card if f.kind == "phone" and f.value.startswith("+")}
    return [
        replace(f, value=written.get(re.sub(r"\D", "", f.value), f.value)) if f.kind == "whatsapp" else f for f in card
    ]


def _reading_order(page: tuple[str, tuple[Fact, ...]]) -> tuple[bool, str]:
    """Pages in the site's own language first, then those under a language's folder
    ("/en/contact/"), each by address: where two pages state a fact alike, the first
    one's wording and label stay (a Greek hotel's "Ρεσεψιόν", not its English page's
    "Reception")."""
    return path_language(urlsplit(page[0]).path) is not None, page[0]


def _card_order(fact: Fact, place: int) -> tuple:
    """Structured data first, then the facts most pages state, then those a page gives
    first (its links, its header); but a phone, e-mail or address the template states
    comes before structured data only the homepage carries: a Korean clinic's JSON-LD
    still had its old number, and its footer named the other branch's after its own."""
    template = fact.pages >= MIN_PAGES_FOR_FACT and fact.kind in ("phone", "email", "address")
    return (not (fact.structured or template), -fact.pages, not fact.structured, place, fact.url, fact.value)


def _hours_places(pages: list[tuple[str, tuple[Fact, ...]]], card: dict[str, Fact]) -> list[list[Fact]]:
    """The card's hours lines by the place that states them: structured data, the
    template (lines on MIN_PAGES_FOR_FACT pages or more), or one page. A line two pages
    state (an hours page's and the contact page's "Maandag Gesloten") is in both, and a
    template line a page with hours of its own states is in that page's too (the footer
    repeating Sunday must not take Sunday out of the hours page's week)."""
    places: dict[str, dict[str, Fact]] = {}
    for url, facts in sorted(pages, key=_reading_order):
        own: dict[str, Fact] = {}
        shared: dict[str, Fact] = {}
        for fact in facts:
            shown = card.get(fact.key()) if fact.kind == "hours" else None
            if shown is None:
                continue
            if fact.structured:
                places.setdefault("structured", {}).setdefault(fact.key(), shown)
            elif shown.pages >= MIN_PAGES_FOR_FACT:
                shared.setdefault(fact.key(), shown)
                places.setdefault("template", {}).setdefault(fact.key(), shown)
            else:
                own.setdefault(fact.key(), shown)
        if own:
            places.setdefault(url, {}).update({**own, **shared})
    return [list(lines.values()) for lines in places.values()]


def _hours_kept(places: list[list[Fact]]) -> list[Fact]:
    """The hours as one place states them: a site says them in several (structured data,
    the contact page, an hours page, the homepage) and languages, and a week read from
    three places at once repeats days, mixes the order of the week, and was cut at
    MAX_HOURS mid-week (a Dutch bike shop's card: 12 lines, Friday to Sunday lost).
    Each place's lines are kept whole, in the order of the week; first the place that
    covers the most days (closed days count; then the one saying more lines, the one
    repeating fewest days, a page over structured data, a contact page, the homepage), then
    only a place that adds days or says them in other words (another language), while
    all fits in MAX_HOURS."""

    summaries = []  # (rank, lines, days covered, day names used) per place
    mentions = {f.key(): _day_mentions(f.value) for lines in places for f in lines}
    days_in = {f.key(): days_of(f.value, mentions[f.key()]) for lines in places for f in lines}
    weeks = [_own_week(lines, days_in) for lines in places]
    # the template's lines a page says again in full: not a place of their own either
    said_again = {f.key() for lines, week in zip(places, weeks) for f in lines if f not in week}
    for lines in weeks:
        if all(f.key() in said_again for f in lines):
            continue
        each = [set() if phone_hours(f) else days_in[f.key()] for f in lines]
        days = set().union(*each)
        named = {f.value[start:end].casefold() for f in lines for start, end, _ in mentions[f.key()]}
        first = min(lines, key=lambda f: (-_contact_rank(f.url), f.url))
        repeated = sum(map(len, each)) - len(days)
        own = sum(f.pages < MIN_PAGES_FOR_FACT for f in lines) or len(lines)  # the template's lines pad every page
        translated = path_language(urlsplit(first.url).path) is not None  # "/en/contact/"
        rank = (-len(days), translated or first.structured, -own, repeated, first.structured)
        summaries.append((rank + (-_contact_rank(first.url), first.url), lines, days, named))

    kept: list[Fact] = []
    covered: set[int] = set()
    words: set[str] = set()
    for _, lines, days, named in sorted(summaries, key=lambda summary: summary[0]):
        if kept and not (days - covered) and (named & words or not named or _stale(lines, kept)):
            continue  # the same days, in the same words or in none: said already
        if kept and len(kept) + len(lines) > MAX_HOURS:
            continue
        # the best place is cut only if alone too long
        groups = {label: i for i, label in enumerate(dict.fromkeys(f.label for f in lines))}  # in the page's order
        shown = {f.key() for f in kept}  # a template line two places keep is said once
        ordered = sorted(lines, key=lambda f: (phone_hours(f), groups[f.label], weekday(f.value)))
        kept += [f for f in ordered if f.key() not in shown][:MAX_HOURS]
        covered |= days
        words |= named
    return kept


_CLOCK = re.compile(r"(\d{1,2})(?:[:.h](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.|" + _AR_DAYTIME + ")?", re.IGNORECASE)


def _clock_times(text: str) -> set[int]:
    """The times of day (in minutes) in an hours line's ranges: "9 am – 5 pm" and
    "09.00–17.00" say the same two."""
    times = set()
    for span in _TIME_RANGE.finditer(text):
        for m in _CLOCK.finditer(text[span.start() : span.end() + 5]):  # the range's "pm" is after its end
            hour = int(m.group(1)) % 12 if m.group(3) else int(m.group(1))
            hour += 12 if m.group(3) and m.group(3).lower().startswith(("p", *_AR_AFTERNOON)) else 0
            times.add(hour * 60 + int(m.group(2) or 0))
    return times


def _stale(lines: list[Fact], kept: list[Fact]) -> bool:
    """Structured data saying the week again with times the page does not say: left
    out of date ("Friday 09:00–16:00" beside the contact page's "Fredag 09.00–15.00").
    Said with the same times, its English days stay on the card beside the site's."""
    said = set().union(*(_clock_times(f.value) for f in kept))
    return all(f.structured for f in lines) and not set().union(*(_clock_times(f.value) for f in lines)) <= said


def _own_week(lines: list[Fact], days_in: dict[str, set[int]]) -> list[Fact]:
    """A page's hours without the template's lines for days the page states itself: a
    footer's "Mo 13.30–18.30 · Di–Fr …" beside the hours page's table says the week
    twice (or, left stale, says it otherwise: "목 야간 ~21:00" beside "목요일 … 오후
    8:30"). A template line for a day the page leaves out stays (its "Sunday 9–17").
    `days_in`: each line's days_of, by its key."""
    own = [f for f in lines if f.pages < MIN_PAGES_FOR_FACT]
    if not own:
        return lines
    days = set().union(*(days_in[f.key()] for f in own if not phone_hours(f)))

    def said_again(f: Fact) -> bool:  # a line naming no day ("営業時間：10:00～18:00") only beside a whole week
        named = days_in[f.key()]
        return named <= days if named else len(days) == 7

    return own + [f for f in lines if f.pages >= MIN_PAGES_FOR_FACT and not said_again(f)]


# Between two day names, what makes them a range: "Dinsdag t/m vrijdag", "Mo–Fr",
# "du lundi au vendredi", "Pazartesi - Cuma", "de segunda a sexta".
_DAY_RANGE = re.compile(
    r"^\s*+(?:\.\s*+)?(?:-|–|—|־|~|～|〜|to|till|until|through|thru|bis|a|al|à|au|às|até|t/m|tot en met|tot|ile|ila|do|až|til|kuni|iki|līdz|έως|εως|ως|đến|tới|sampai|hingga|s\.d\.|s/d|по|до|"
    r"부터|から|至|到|ถึง|إلى|الى|حتى|لغاية|עד|تا|الی|لغایت)\s*$",
    re.IGNORECASE,
)
_KOREAN_DAY = re.compile(r"(?<![가-힣])([월화수목금토일])(?:요일|(?![가-힣]))")
# Weeks in two or three letters, Monday first. Their names are words in other languages
# ("to", "la", "ons", "tor", "man"), and one name is two days ("so": Sunday in German,
# Saturday in Czech), so a line's short names are read in one week: the one its ranges
# are written in ("Po–Pá", "mån–tor"), else the one most of them belong to. Such a name
# counts as a day in a range, or before a time ("La 10–20", "fre 9–15", "Su klo 11–18",
# a table's "| La | 10–20 |") or a word for closed ("lör–sön stängt", "So zavřeno"):
# written with a capital, in a line with a range of its week, or when it is no word
# elsewhere ("mån", "lör", "søn").
_SHORT_WEEKS = {
    "de": "mo di mi do fr sa so",
    "nl": "ma di wo do vr za zo",
    "sv": "mån tis ons tor fre lör sön",
    "da": "man tir ons tor fre lør søn",  # and Norwegian
    "cs": "po út st čt pá so ne",
    "fi": "ma ti ke to pe la su",
    "uk": "пн вт ср чт пт сб нд",
    "ru": "пн вт ср чт пт сб вс",
    "hr": "pon uto sri čet pet sub ned",  # and Bosnian, Serbian in Latin letters
    "sl": "pon tor sre čet pet sob ned",
    "ca": "dl dt dc dj dv ds dg",
    # Hungarian, Estonian and Latvian write a day in one letter ("H–P: 9–18, Szo: 9–13";
    # "E–R 8–18, L 9–15, P suletud"; "P–Pk 9–18, S 10–15"), Lithuanian in one or two
    # ("Pr–Pn", "Š"): each is a day only in a line that has a range of its week, and a
    # range of letters only where a line, a label or an hours word leads to it ("Zone
    # C–S 10–12" is none); a tie goes to Hungarian, the first
    "hu": "h k sze cs p szo v",
    "et": "e t k n r l p",
    "lt": "pr an tr kt pn š sk",
    "lv": "p o t c pk s sv",
}
_SHORT_WEEKS = {lang: names.split() for lang, names in _SHORT_WEEKS.items()}
_ONLY_DAYS = {"mån", "tis", "lör", "sön", "lør", "søn", "út", "čt", "pá", "sre", "čet"}
_ONLY_DAYS |= {"пн", "вт", "ср", "чт", "пт", "сб", "нд", "вс"}  # Cyrillic abbreviations, no words
_SHORT_NAME = re.compile(
    r"(?<!\w)("
    + "|".join(sorted({n for names in _SHORT_WEEKS.values() for n in names}, key=len, reverse=True))
    + r")(?!\w|\.\w)",  # not "P.IVA", "s.n.c."
    re.IGNORECASE,
)
_SHORT_SEPARATOR = re.compile(r"\.?\s*[–-]\s*$")
_AFTER_SHORT_DAY = re.compile(  # one class before what follows: three \s* in a row backtracked cubically
    r"[\s.:|]{0,8}(?:(?:klo|kl\.?)\s?)?\d{1,2}(?:[.:]\d{2})?\s{0,3}[–-]\s{0,3}\d|[\s.:|]{0,8}(?:"
    + _CLOSED.pattern
    + r")(?=\s*(?:[,.;)|]|$))",  # "La suljettu", not "La fermeture du magasin"
    re.IGNORECASE,
)
# Short names that are common words or abbreviations elsewhere ("Main St 12-14", "Tor 3-5"):
# a day only in a range, or in a line with a range of their week.
_WORDS_ELSEWHERE = {"st", "tor", "ons", "man", "ne", "po", "dl", "dt", "dc", "dj", "ds"}
_WORDS_ELSEWHERE |= {*"etknrlpocshv", "pr", "an", "tr", "kt", "pn", "sk", "pk", "sv"}
# Japanese "月曜日", "水曜", lists "土・日"; Chinese "星期一", "週六", "周一、二、三、五".
_KANJI_DAY = re.compile(
    r"([月火水木金土日])曜日?|"
    + _CHINESE_WEEKDAY
    + "("
    + _CHINESE_DAY_NAME
    + r"(?:\s*[、,，至到~～〜－–-]?\s*"  # "周一、二、三、五", "星期一至五", "週六日"
    + _CHINESE_DAY_NAME
    + r")*)|"
    r"(?<![\u4e00-\u9fff\d])([月火水木金土日](?:\s*[・·、～〜~－-]\s*[月火水木金土日])+)(?![\u4e00-\u9fff])"
)
_KANJI_WEEK = "月火水木金土日"
_CHINESE_WEEK = "一二三四五六日"
# Short names a range is written with, counted when capitalised ("Lun-Ven", "Seg-Sex",
# "Ma t/m Vr"): French, Italian, Portuguese, Dutch.
_SHORT_WEEKDAYS = {"mer": 2, "jeu": 3, "ven": 4, "gio": 3, "seg": 0, "ter": 1, "qua": 2, "qui": 3, "sex": 4}
_SHORT_WEEKDAYS |= {"ma": 0, "wo": 2, "vr": 4, "za": 5, "zo": 6}
_SHORT_WEEKDAYS |= {"minggu": 6}  # Indonesian Sunday, with a capital: "minggu" is a week
_WORKING_WEEK = ("weekdays", "werktags", "vardagar", "hverdage", "hverdager", "καθημερινές", "καθημερινες", "평일")
_WORKING_WEEK += ("平日", "radnim danima")  # Japanese and Chinese: a table's column "平日", beside "土・日・祝日"
_WORKING_WEEK += ("entre setmana", "entre semana", "feiners", "días laborables", "dies laborables", "med tednom")
_WORKING_WEEK += ("delavniki", "delavnikih")
_WORKING_WEEK += ("tööpäeviti", "tööpäevadel", "darbo dienomis", "darbo dienas", "darba dienās", "darbdienās")
# A caller's weekend, Saturday and Sunday ("are you open at the weekend?"): in questions
# only, as a page's "weekend rental" or "weekend brunch" is no line of its week.
_WEEKEND = re.compile(
    r"\b(?:week-?ends?|wochenende\w*|fin(?:es)? de semana|caps? de setmana|fine settimana|fins? de semana|fim de semana|"
    r"weekend(?:en|s)?|hafta ?sonu\w*|helg(?:en)?|víkend\w*|vikend\w*|kon\w+ tedna|hétvég\w*|viikonlop\w*|"
    r"savaitgal\w*|nädalavahetus\w*|σαββατοκύριακο\w*|выходны[ех] дн\w*|вихідн\w* дн\w*)\b|주말|週末|周末|สุดสัปดาห์",
    re.IGNORECASE,
)


# Vietnamese days by their number ("Thứ Hai", Monday, the second day; "Thứ 7"; "T2 – T7")
# and Sunday, "Chủ Nhật" ("CN" only closing a range).
_VI_DAY = re.compile(r"(?<!lần )\bthứ\s*(hai|ba|tư|năm|sáu|bảy|[2-7])\b|\b(chủ\s*nhật)\b", re.IGNORECASE)
_VI_RANGE = re.compile(r"\bT([2-7])\s{0,2}[–-]\s{0,2}(?:T([2-7])|(CN))\b")  # "T2 – T7", "T2-CN"; not "X-T3"
# An Indonesian Monday, "Senin", before a range word, a colon or a time: "senin" is Turkish for "your".
_ID_MONDAY = re.compile(r"\bSenin\b(?=\s{0,3}(?:[–\-:,]|s\.d\.|s/d|sampai|hingga|\d))")
_UK_FRIDAY = re.compile(r"\bп['’ʼ]ятниц[яюіеь]\w*", re.IGNORECASE)  # "П'ятниця": \w+ splits it
_VI_ORDINALS = {"hai": 0, "ba": 1, "tư": 2, "năm": 3, "sáu": 4, "bảy": 5}


def _vi_weekday(m: re.Match) -> int:
    word = (m.group(1) or "").casefold()
    if word.isdigit():
        return int(word) - 2
    return _VI_ORDINALS[word] if word else 6


def _vi_range(m: re.Match) -> list[tuple[int, int, int]]:
    end = (m.start(2) - 1, m.end(2), int(m.group(2)) - 2) if m.group(2) else (m.start(3), m.end(3), 6)
    return [(m.start(1) - 1, m.end(1), int(m.group(1)) - 2), end]


_AR_AND_DAY = re.compile(r"\bو(" + "|".join(n for n in _WEEKDAY_OF if n.startswith("ال")) + r")\b")  # "والأحد"
_THAI_MENTION = re.compile("(วัน)?(" + _THAI_NAME + ")")
_THAI_LIST = re.compile(r"\s{0,3}(?:[,/&+–—-]|ถึง|และ|หรือ)?\s{0,3}")
# Thai shops' short week, "จ.-ศ. 10:00–20:00", "จ., พ.-อา. 11.00–22.00 น.": a letter or two and a
# dot. "จ." is also the province and "อ." the district of every address ("อ.เมือง จ.เชียงใหม่"),
# so the names count only as a list or range that a time or a word for closed follows.
_THAI_SHORT = ["จ", "อ", "พ", "พฤ", "ศ", "ส", "อา"]
_THAI_SHORT_NAME = r"(?<![ก-๛])(?:พฤ|อา|[จอพศส])\.(?![ก-๛])"
# Between two short names: a space or a mark, each one way only (an optional mark between two
# optional runs of spaces backtracked exponentially on a run of names no time follows).
_SHORT_GAP = r"(?:\s{1,3}(?:[,/&–—\-־]\s{0,3})?|[,/&–—\-־]\s{0,3})"
_THAI_SHORT_DAYS = re.compile(
    "(" + _THAI_SHORT_NAME + "(?:" + _SHORT_GAP + _THAI_SHORT_NAME + ")*)"
    r"(?=\s{0,3}(?:เวลา)?:?\s{0,3}(?:\d{1,2}[.:]\d{2}|(?<!เ)ปิด|หยุด))"  # "เวลา": (at the) time
)
# A lone short name ("อ." is also a teacher, "จ." a province) only where an hours line puts it:
# first, after a label's colon, or after open, closed, every or day.
_THAI_SHORT_ALONE = re.compile(r"(?:^|[:|]|เปิด|ปิด|หยุด|ทุก|วัน)\s{0,3}$")
_THAI_SHORT_ONE = re.compile(_THAI_SHORT_NAME)
# Hebrew days, Monday first: "יום שני" (Monday) is also "second", and "שני" alone "two of", so a
# name counts after "יום"/"ימי"/"ימים" (day, days), first on a line or after a label's colon
# before a time or a range ("שני 9:00–19:00", "שעות פתיחה: ראשון עד חמישי …"), listed after a
# day ("שני ורביעי"), or when it is no number ("שישי", "שבת", "מוצ״ש": Saturday night). Words
# take "and" and "in" written on: "ובשבת" (and on Saturday); not "לשבת" (to sit, too).
_HEBREW_NAMES = ["שני", "שלישי", "רביעי", "חמישי", "שישי", "שבת", "ראשון"]
_HE = "\u05d0-\u05ea"
_HEBREW_MENTION = re.compile(
    f"(?<![{_HE}])(?:[ובלמ]?ב?(?:יום|ימי|ימים)\\s+)?(?:ו?ב?)("
    + "|".join(_HEBREW_NAMES)
    + f'|מוצ["״]ש|מוצאי שבת)(?![{_HE}])'
)
_HEBREW_LIST = re.compile(r"\s{0,3}(?:[,/&–—\-־]|עד)?\s{0,3}")
_HEBREW_TIME_AFTER = re.compile(r"[^\d\n]{0,20}?\d{1,2}[.:]\d{2}|[\s:–—\-]{0,5}סגור")
# What follows a day that starts a line or a label: a time or closed ("וערבי חג", and holiday
# eves, between), or a range to another day.
_HEBREW_ROW = re.compile(
    r"\s{0,3}[:–—\-]?\s{0,3}(?:וערבי חג\s{0,3}[:–—\-]?\s{0,3})?(?:\d{1,2}[.:]\d{2}|סגור)"
    r"|\s{0,3}(?:עד|[–—\-־])\s{0,3}(?:יום\s+)?(?:" + "|".join(_HEBREW_NAMES) + ")"
)
_HEBREW_LINE_START = re.compile(r"(?:^|:)\s{0,3}$")
# The short week Israeli shops write, "א׳–ה׳ 9:00–19:00, ו׳ 9:00–14:00": a letter (Sunday first)
# and a geresh, as a list or range that a time follows within a few words ("ו׳ וערבי חג 9:00–14:00");
# a lone one only first, after a colon or after "יום" ("קבוצה א' 16:00" is group A).
_HEBREW_SHORT = "בגדהושא"  # Monday first
_HEBREW_SHORT_NAME = f"(?<![{_HE}])[אבגדהוש]['׳’](?![{_HE}])"
_HEBREW_SHORT_DAYS = re.compile(
    "(" + _HEBREW_SHORT_NAME + "(?:" + _SHORT_GAP + _HEBREW_SHORT_NAME + ")*)(?=" + _HEBREW_TIME_AFTER.pattern + ")"
)
_HEBREW_SHORT_ALONE = re.compile(r"(?:^|[:|]|יום|ימי|ימים)\s{0,3}$")
_HEBREW_SHORT_ONE = re.compile(_HEBREW_SHORT_NAME)


def _listed(found: list[tuple[int, int, int]], text: str, start: int, gap: re.Pattern) -> bool:
    """Whether a day name at `start` follows the last day `found` with only `gap` (a list's
    or range's marks and words) between them: "วันจันทร์ พุธ", "שני ורביעי"."""
    return bool(found) and found[-1][1] <= start and gap.fullmatch(text, found[-1][1], start) is not None


def _thai_days(text: str) -> list[tuple[int, int, int]]:
    """Thai days: a name after "วัน" (day), and the names listed after it without it
    ("วันจันทร์ พุธ ศุกร์", "วันเสาร์–อาทิตย์"): alone, "อาทิตย์" is also a week."""
    found: list[tuple[int, int, int]] = []
    for m in _THAI_MENTION.finditer(text):
        if m.group(1) or _listed(found, text, m.start(), _THAI_LIST):
            name = m.group(2)
            found.append((m.start(), m.end(), 3 if name == "พฤหัส" else _THAI_NAMES.index(name)))
    return found


def _thai_short_days(text: str) -> list[tuple[int, int, int]]:
    """(start, end, weekday) of each day of a Thai short week (_THAI_SHORT_DAYS)."""
    return _short_run_days(
        text, _THAI_SHORT_DAYS, _THAI_SHORT_ONE, _THAI_SHORT_ALONE, lambda n: _THAI_SHORT.index(n[:-1])
    )


def _short_run_days(text: str, runs: re.Pattern, one: re.Pattern, alone: re.Pattern, day) -> list[tuple[int, int, int]]:
    """The days of each run of short names `runs` finds: a run of two or more, or one name
    where `alone` says an hours line puts it (matched on the text before it)."""
    found = []
    for run in runs.finditer(text):
        names = list(one.finditer(text, run.start(1), run.end(1)))
        if len(names) > 1 or alone.search(text[max(0, run.start() - 8) : run.start()]):
            found += [(m.start(), m.end(), day(m.group(0))) for m in names]
    return found


def _hebrew_days(text: str) -> list[tuple[int, int, int]]:
    """Hebrew days (_HEBREW_MENTION, _HEBREW_SHORT_DAYS)."""
    found: list[tuple[int, int, int]] = []
    for m in _HEBREW_MENTION.finditer(text):
        name = m.group(1)
        day = 5 if name.startswith("מוצ") else _HEBREW_NAMES.index(name)
        first = _HEBREW_LINE_START.search(text[max(0, m.start() - 40) : m.start()]) and _HEBREW_ROW.match(text, m.end())
        if m.start(1) > m.start() + 2 or day in (4, 5) or first or _listed(found, text, m.start(), _HEBREW_LIST):
            found.append((m.start(), m.end(), day))
    found += _short_run_days(
        text, _HEBREW_SHORT_DAYS, _HEBREW_SHORT_ONE, _HEBREW_SHORT_ALONE, lambda n: _HEBREW_SHORT.index(n[0])
    )
    return sorted(found)


_PERSIAN_MENTION = re.compile(_PERSIAN_DAY)
_PERSIAN_COUNT = {"": 5, "یک": 6, "يک": 6, "یك": 6, "يك": 6, "دو": 0, "سه": 1, "چهار": 2, "پنج": 3}


def _persian_days(text: str) -> list[tuple[int, int, int]]:
    """(start, end, weekday) of each Persian day (_PERSIAN_DAY); "پنج جمعه" is five Fridays."""
    found = []
    for m in _PERSIAN_MENTION.finditer(text):
        if m.group(2) == "شنبه":
            found.append((m.start(), m.end(), _PERSIAN_COUNT[m.group(1) or ""]))
        elif not m.group(1):
            found.append((m.start(2), m.end(), 4))
    return found


def _short_days(text: str) -> list[tuple[int, int, int]]:
    """(start, end, weekday) of each short day name in one of _SHORT_WEEKS."""
    names = list(_SHORT_NAME.finditer(text))
    if not names:
        return []
    ranges: dict[str, list[tuple[re.Match, re.Match]]] = {}
    for first, last in zip(names, names[1:]):
        hyphenated = text[first.start() - 1 : first.start()] == "-" or text[last.end() : last.end() + 1] == "-"
        letters = len(first.group(1)) == 1 or len(last.group(1)) == 1
        if (
            _SHORT_SEPARATOR.match(text[first.end() : last.start()])
            and not hyphenated
            and (not letters or _leads_to(text, first.start()))
        ):
            for lang, week in _SHORT_WEEKS.items():
                a, b = first.group(1).casefold(), last.group(1).casefold()
                if a in week and b in week and a != b:
                    ranges.setdefault(lang, []).append((first, last))
    words = [m.group(1).casefold() for m in names]
    lang = max(_SHORT_WEEKS, key=lambda lang: (len(ranges.get(lang, ())), sum(w in _SHORT_WEEKS[lang] for w in words)))
    week = _SHORT_WEEKS[lang]
    in_range = {m.start() for pair in ranges.get(lang, ()) for m in pair}
    found = []
    for m in names:
        name = m.group(1)
        if name.casefold() not in week:
            continue
        alone = name.casefold() in _WORDS_ELSEWHERE and lang not in ranges
        if m.start() in in_range or (
            not alone
            and (name[0].isupper() or lang in ranges or name.casefold() in _ONLY_DAYS)
            and _AFTER_SHORT_DAY.match(text, m.end())
        ):
            found.append((m.start(), m.end(), week.index(name.casefold())))
    return found


def _leads_to(text: str, start: int) -> bool:
    """Whether the start of a line, a label or an hours word comes before `start`: "E–R
    8–18", "| K–P |", "Avatud E–R", not "Zone C–S" or "Block K–N"."""
    before = text[:start].rstrip()
    return not before or before[-1] in ":|,;(/•·*>–-\n" or bool(_HOURS_WORDS.search(before[-40:]))


# Bulgarian's Sunday, "неделя", is Russian's "week": it names a day first on a line, after
# a joiner or "в" (on), or in a line with another Bulgarian day or "почивен" (day off). *ours*
_BULGARIAN_WEEK = re.compile(r"понеделник|сряда|четвъртък|петък|събота|почивен", re.IGNORECASE)


def _bulgarian_sunday(text: str, start: int) -> bool:
    before = text[:start].rstrip().casefold()
    return (
        not before
        or before[-1] in ",–-—:/("
        or before.split()[-1] in ("в", "и", "до")
        or bool(_BULGARIAN_WEEK.search(text))
    )


def _day_mentions(text: str) -> list[tuple[int, int, int]]:
    """(start, end, weekday) of each day named in an hours line: full names, and short
    ones written with a capital ("Mo", "Di", "Sáb"; "di" is Italian for "of")."""
    found = []
    for m in _WORD.finditer(text):
        word, folded = m.group(0), m.group(0).casefold()
        day = _WEEKDAY_OF.get(folded) if len(word) > 3 or word[0].isupper() else None
        if folded == "неделя" and not _bulgarian_sunday(text, m.start()):
            day = None  # Russian's "week": "рабочая неделя", "на этой неделе"
        if day is None and word[0].isupper():
            day = _SHORT_WEEKDAYS.get(folded)
        if day is not None:  # Korean names ("월요일", 3 letters, no capitals) are matched below
            end = m.end() + 6 if text[m.end() : m.end() + 6].casefold() == "-feira" else m.end()
            found.append((m.start(), end, day))
    found += [(m.start(), m.end(), "월화수목금토일".index(m.group(1))) for m in _KOREAN_DAY.finditer(text)]
    found += [(m.start(), m.end(), _vi_weekday(m)) for m in _VI_DAY.finditer(text)]
    found += [mention for m in _VI_RANGE.finditer(text) for mention in _vi_range(m)]
    found += [(m.start(), m.end(), 0) for m in _ID_MONDAY.finditer(text)]
    found += [(m.start(), m.end(), 4) for m in _UK_FRIDAY.finditer(text)]
    found += _thai_days(text) + _thai_short_days(text) + _hebrew_days(text) + _persian_days(text)
    found += [(m.start(1), m.end(1), _WEEKDAY_OF[m.group(1)]) for m in _AR_AND_DAY.finditer(text)]
    short = _short_days(text)
    found = [f for f in found if not any(start == f[0] for start, _, _ in short)] + short
    for m in _KANJI_DAY.finditer(text):
        if m.group(1):
            found.append((m.start(), m.end(), _KANJI_WEEK.index(m.group(1))))
        elif m.group(2) and len(m.group(2)) == 1:  # "週一" as a whole, so that "週一至週五" is a range
            found.append((m.start(), m.end(), _CHINESE_WEEK.index(m.group(2).replace("天", "日"))))
        elif m.group(2):  # "周一、二、三、五"
            start = m.start(2)
            found += [
                (start + i, start + i + 1, _CHINESE_WEEK.index(ch))
                for i, ch in enumerate(m.group(2).replace("天", "日"))
                if ch in _CHINESE_WEEK
            ]
        else:  # "土・日", "月～金": each day of the list or range
            start = m.start(3)
            found += [
                (start + i, start + i + 1, _KANJI_WEEK.index(ch))
                for i, ch in enumerate(m.group(3))
                if ch in _KANJI_WEEK
            ]
    return sorted(found)


def days_of(text: str, mentions: list[tuple[int, int, int]] | None = None) -> set[int]:
    """The weekdays (0 = Monday) an hours line speaks of: the days it names, those
    between two joined as a range, the whole week for "daily" or "todos os dias", Monday
    to Friday for "weekdays". `mentions`: _day_mentions(text), when already known."""
    folded = text.casefold()
    words = set(_WORD.findall(folded))
    if _says(_WORKING_WEEK, folded, words):
        return set(range(5))
    if _says(_EVERY_DAY, folded, words):
        return set(range(7))
    if re.search(_THAI_EVERY_DAY, text):
        return set(range(7))
    mentions = _day_mentions(text) if mentions is None else mentions
    days = {day for _, _, day in mentions}
    for (before, end, first), (start, after, last) in zip(mentions, mentions[1:]):
        joined = _DAY_RANGE.match(text[end:start]) or _from_to(text[before:end], text[end:start], text[start:after])
        if joined and not _and_between(text, (before, end), (start, after)):
            days |= {d % 7 for d in range(first, last + (7 if last < first else 0) + 1)}
    return days


def _from_to(first: str, between: str, last: str) -> bool:
    """Estonian says a range in its days' cases alone: "esmaspäevast reedeni" (from
    Monday to Friday)."""
    return not between.strip() and first.casefold().endswith("st") and last.casefold().endswith("ni")


# Czech and Slovak days, between which "a" is "and" ("utorok a štvrtok"), not Spanish's,
# Portuguese's or Italian's "to" ("lunes a viernes"). *ours*
_CS_SK_DAYS = frozenset(
    [
        "pondělí",
        "úterý",
        "středa",
        "středu",
        "čtvrtek",
        "pátek",
        "sobota",
        "sobotu",
        "neděle",
        "neděli",
        "pondelok",
        "utorok",
        "streda",
        "stredu",
        "štvrtok",
        "piatok",
        "nedeľa",
        "nedeľu",
    ]
)


def _and_between(text: str, first: tuple[int, int], last: tuple[int, int]) -> bool:
    """Whether two day names are joined by a Czech or Slovak "a" (and)."""
    return text[first[1] : last[0]].strip() == "a" and all(
        text[a:b].casefold() in _CS_SK_DAYS for a, b in (first, last)
    )


def spoken_days(text: str) -> set[int]:
    """The weekdays a caller's question names: days_of, without the two- and three-letter
    names a question uses as words ("Do you open on Friday?", "Do koľkej…", "Mi…"), and
    Saturday and Sunday for the weekend."""
    mentions = [m for m in _day_mentions(text) if not _LATIN_SHORT.fullmatch(text[m[0] : m[1]])]
    days = days_of(text, mentions)
    return days | {5, 6} if names_weekend(text) else days


def names_weekend(text: str) -> bool:
    return bool(_WEEKEND.search(text))


def names_working_week(text: str) -> bool:
    """ "weekdays", "entre setmana", "ob delavnikih", ... (days_of reads them as Monday to Friday)."""
    folded = text.casefold()
    return _says(_WORKING_WEEK, folded, set(_WORD.findall(folded)))


def _says(phrases: tuple[str, ...], folded: str, words: set[str]) -> bool:
    """Whether casefolded text (`words`: its words) says one of `phrases`: a word of them,
    or a phrase of several anywhere in it."""
    return bool(words & set(phrases)) or any(" " in phrase and phrase in folded for phrase in phrases)


_LINE_LEAD = re.compile(r"^[\s|*_>#-]*")


def _leads(before: str) -> bool:
    """Whether what comes before a line's first day leaves the day leading it: nothing, a
    label ("Opening hours: ", "Horari: ") or one short word ("De", "Od", "Du", "From");
    not a sentence's "The weekend rental runs from ", "Kinderworkshop elke "."""
    before = before.strip()
    return not before or (before.endswith(":") and len(before) <= 30) or (len(before) <= 4 and " " not in before)


@lru_cache(maxsize=16384)
def hours_line_days(text: str) -> frozenset[int]:
    """The weekdays that lead a line of `text` giving a time or saying closed: an hours
    table's row or an hours line ("| Saturday | 10am – 2pm |", "Dissabte: 10:00 – 14:00",
    "Od ponedeljka do petka: 8.00–16.00"), not prose naming a day ("the weekend rental
    runs from Saturday at 10:00 to Monday")."""
    days: set[int] = set()
    for line in text.splitlines():
        line = _LINE_LEAD.sub("", line)
        mentions = _day_mentions(line)
        if mentions and _leads(line[: mentions[0][0]]) and (_times(line) or _CLOSED.search(line)):
            days |= days_of(line, mentions)
    return frozenset(days)


_LATIN_SHORT = re.compile(r"[A-Za-z]{2,3}\.?")


def _words(kind: str, langs: list[str]) -> str:
    """The kind's label in the site's languages and English: "Adresse / Address"."""
    words = [LABELS[lang][kind] for lang in langs if lang in LABELS] + [LABELS["en"][kind]]
    return " / ".join(dict.fromkeys(words))


def card_markdown(card: list[Fact], langs: list[str]) -> str:
    """The card as Markdown: one section per kind, each line labelled in the site's
    languages (most used first) and in English ("Teléfono / Phone: +34 … (Recepción)")."""
    sections = []
    for kind in KINDS:
        facts = [f for f in card if f.kind == kind]
        if not facts:
            continue
        word = _words(kind, langs)
        lines = [f"{word}: {f.value}" + (f" ({f.label})" if f.label and f.label not in word else "") for f in facts]
        sections.append(f"## {word}\n\n" + "\n\n".join(lines))
    return f"# {_words('title', langs)}\n\n" + "\n\n".join(sections) if sections else ""


def _the_business(fact: Fact, pages: int, site_pages: int) -> bool:
    """A fact speaks for the business when the site gives it in structured data, on a
    contact or legal page, or on many pages (its header or footer; on a small site, most
    of them): an address in a blog post is someone else's."""
    if fact.structured or _contact_rank(fact.url):
        return True
    return pages >= MIN_PAGES_FOR_FACT or (pages >= 2 and 2 * pages > site_pages)


def card_url(card: list[Fact], homepage_url: str) -> str:
    """Where the card is read: the page most of its facts come from."""
    urls = Counter(f.url for f in card if f.url)
    page = urls.most_common(1)[0][0] if urls else homepage_url
    return page.split("#")[0] + CARD_FRAGMENT
