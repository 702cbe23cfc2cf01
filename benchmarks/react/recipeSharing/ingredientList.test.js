import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './ingredientList';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('shows each ingredient with its amount', async () => {
  fetchMock.get('/api/recipes/12/ingredients', [
    { name: 'Flour', amount: '200 g' },
    { name: 'Butter', amount: '50 g' },
    { name: 'Eggs', amount: '2' },
  ]);

  await act(async () => { render(<App />); });

  expect(fetchMock.called('/api/recipes/12/ingredients')).toBe(true);
  const items = screen.getAllByRole('listitem');
  expect(items).toHaveLength(3);
  expect(items[0]).toHaveTextContent('200 g Flour');
  expect(items[2]).toHaveTextContent('2 Eggs');
}, 10000);

test('shows that ingredients are unavailable when loading fails', async () => {
  fetchMock.get('/api/recipes/12/ingredients', 404);

  await act(async () => { render(<App />); });

  expect(fetchMock.called('/api/recipes/12/ingredients')).toBe(true);
  expect(screen.getByText(/ingredients unavailable/i)).toBeInTheDocument();
}, 10000);
