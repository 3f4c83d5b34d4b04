/* theme.js – mobile menu + FAQ accordion */
document.addEventListener('DOMContentLoaded',function(){
  var t=document.querySelector('.elementor-menu-toggle'),m=document.querySelector('.elementor-nav-menu--main');
  if(t&&m){t.addEventListener('click',function(){m.style.display=m.style.display==='block'?'':'block';});}
  document.querySelectorAll('.elementor-tab-title').forEach(function(h){
    h.addEventListener('click',function(e){e.preventDefault();var c=h.nextElementSibling;c.hidden=!c.hidden;});
  });
});
