document.querySelector('.menu-toggle')&&document.querySelector('.menu-toggle').addEventListener('click',function(){});
