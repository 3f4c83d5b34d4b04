document.querySelectorAll('#cookie-banner button').forEach(b=>b.onclick=()=>document.getElementById('cookie-banner').remove());
