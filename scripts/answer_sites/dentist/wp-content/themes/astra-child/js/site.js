document.querySelectorAll('.cli_action_button').forEach(b=>b.addEventListener('click',()=>document.getElementById('cookie-law-info-bar').remove()));
