import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './searchRecipes';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('searches recipes by keyword and lists the matches', async () => {
  fetchMock.get('/api/recipes?q=pasta', [
    { id: 1, title: 'Pasta e fagioli' },
    { id: 2, title: 'Lemon garlic pasta' },
  ]);

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/search recipes/i), { target: { value: 'pasta' } });
  });
  await act(async () => { fireEvent.click(screen.getByRole('button', { name: /search/i })); });

  expect(fetchMock.called('/api/recipes?q=pasta')).toBe(true);
  expect(screen.getByText('Pasta e fagioli')).toBeInTheDocument();
  expect(screen.getByText('Lemon garlic pasta')).toBeInTheDocument();
}, 10000);

test('shows an error when the recipe search fails', async () => {
  fetchMock.get('/api/recipes?q=pasta', 500);

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/search recipes/i), { target: { value: 'pasta' } });
  });
  await act(async () => { fireEvent.click(screen.getByRole('button', { name: /search/i })); });

  expect(fetchMock.called('/api/recipes?q=pasta')).toBe(true);
  expect(screen.getByText(/search failed/i)).toBeInTheDocument();
}, 10000);
